// Replay statistics (see replay_stats.h).
#include "live/replay_stats.h"

#include <cmath>

#include "core/stats.h"

namespace dmlkit::live {

namespace {

double mean(const std::vector<double>& v) { return v.empty() ? 0 : summarize(v).mean; }

}  // namespace

ReplayStats replay_stats(const ReplayResult& r) {
  ReplayStats s;
  std::vector<double> abs_gaps, rel_gaps, abs_rel_gaps;
  for (const auto& j : r.jobs)
    if (j.sim_jct_s >= 0 && j.real_jct_s >= 0) {
      ++s.finished_in_both;
      abs_gaps.push_back(std::fabs(j.gap_s()));
      if (j.sim_jct_s > 0) rel_gaps.push_back(j.gap_s() / j.sim_jct_s);
      if (j.sim_jct_s > 0) abs_rel_gaps.push_back(std::fabs(j.gap_s()) / j.sim_jct_s);
    }
  std::vector<double> decide_ms, per_action_ms;
  for (const auto& d : r.decisions)
    if (d.action == "place" || d.action == "move") ++s.placements;
  for (const auto& x : r.rounds) {
    decide_ms.push_back(x.decide_ms);
    if (x.actions > 0) per_action_ms.push_back(x.apply_ms / x.actions);
  }
  s.gap_avg_jct_s = r.real_avg_jct_s - r.sim_avg_jct_s;
  s.gap_avg_jct_rel = r.sim_avg_jct_s > 0 ? s.gap_avg_jct_s / r.sim_avg_jct_s : 0;
  s.mean_abs_job_gap_s = mean(abs_gaps);
  s.mean_rel_job_gap = mean(rel_gaps);
  s.median_abs_rel_job_gap = percentile(abs_rel_gaps, 50);
  s.decide_ms_mean = mean(decide_ms);
  s.decide_ms_p99 = percentile(decide_ms, 99);
  s.apply_ms_per_action_mean = mean(per_action_ms);
  s.start_latency_s_mean = mean(r.start_latency_s);
  s.start_latency_s_p50 = percentile(r.start_latency_s, 50);
  s.start_latency_s_max = percentile(r.start_latency_s, 100);
  return s;
}

}  // namespace dmlkit::live
