// Harmony's training environment; see harmony_env.h.
#include "cluster/train/harmony_env.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cluster/policies/ps/ps_pool.h"
#include "core/error.h"

namespace dmlkit::cluster {

HarmonyEpisode run_harmony_env(const ClusterSpec& cluster, const Workload& workload, HarmonyPlacer& placer,
                               const HarmonySpeedFn& speed, const std::vector<float>& speed_scale,
                               const HarmonyEnvConfig& c, const std::function<void(double)>& on_interval) {
  struct EnvJob {
    const Job* job;
    double done = 0;
    Placement placement;
    double finish_s = -1;
  };
  std::vector<EnvJob> jobs;
  for (const Job& j : workload.jobs) {
    if (!j.ps) throw Error("harmony training: job '" + j.name + "' is not a parameter-server job");
    jobs.push_back({&j});
  }
  HarmonyEpisode ep;
  size_t finished = 0;
  std::vector<HarmonyRunningJob> running;
  std::vector<const PsJobSpec*> fresh;
  std::vector<size_t> fresh_idx, run_idx;
  std::vector<Placement> out;
  std::vector<HarmonyPlacedJob> placed;
  std::vector<double> sp, chunk_sp;
  const int n_slots = placer.shape().jobs;
  for (long k = 0; finished < jobs.size() && k < c.max_intervals; ++k) {
    const double t = static_cast<double>(k) * c.round_s;
    running.clear();
    fresh.clear();
    fresh_idx.clear();
    for (size_t i = 0; i < jobs.size(); ++i) {
      EnvJob& j = jobs[i];
      if (j.finish_s >= 0 || j.job->arrival_s > t + 1e-9) continue;
      if (j.placement.empty()) {
        fresh.push_back(j.job->ps.get());
        fresh_idx.push_back(i);
      } else {
        running.push_back({j.job->ps.get(), j.placement});
      }
    }
    if (!fresh.empty()) {
      placer.decide(running, fresh, out);
      for (size_t f = 0; f < fresh.size(); ++f) jobs[fresh_idx[f]].placement = out[f];
    }
    placed.clear();
    run_idx.clear();
    for (size_t i = 0; i < jobs.size(); ++i) {
      const EnvJob& j = jobs[i];
      if (j.finish_s >= 0 || j.placement.empty()) continue;
      placed.push_back(harmony_placed_job(*j.job->ps, j.placement));
      run_idx.push_back(i);
    }
    sp.assign(placed.size(), 0.0);
    for (size_t at = 0; at < placed.size(); at += static_cast<size_t>(n_slots)) {
      const size_t n = std::min(placed.size() - at, static_cast<size_t>(n_slots));
      speed(std::span<const HarmonyPlacedJob>(placed.data() + at, n), chunk_sp);
      std::copy_n(chunk_sp.begin(), n, sp.begin() + static_cast<long>(at));
    }
    double reward = 0;
    for (size_t r = 0; r < run_idx.size(); ++r) {
      EnvJob& j = jobs[run_idx[r]];
      const PsJobSpec& s = *j.job->ps;
      const double floor = c.min_speed_share * speed_scale[std::clamp(placed[r].type, 0, static_cast<int>(speed_scale.size()) - 1)];
      const double v = std::max(sp[r], floor);
      const double epoch_size = s.job_type().epoch_size;
      const double epochs = v * c.round_s / epoch_size;
      const double left = s.total_epochs - j.done;
      if (epochs >= left) {
        j.finish_s = t + left * epoch_size / v;
        reward += left / s.total_epochs;
        j.done = s.total_epochs;
        ++finished;
      } else {
        j.done += epochs;
        reward += epochs / s.total_epochs;
      }
    }
    ep.rewards.push_back(reward);
    if (on_interval) on_interval(reward);
  }
  double sum = 0;
  long n = 0;
  for (const EnvJob& j : jobs) {
    if (j.finish_s < 0) {
      ++ep.unfinished;
      continue;
    }
    sum += j.finish_s - j.job->arrival_s;
    ++n;
  }
  ep.avg_jct_s = n > 0 ? sum / static_cast<double>(n) : 0.0;
  return ep;
}

}  // namespace dmlkit::cluster
