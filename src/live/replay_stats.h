// Statistics of a live replay (live/replay.h): the sim-to-real gap of the JCTs and the
// controller's latencies, as `cluster replay` reports them. Percentiles are core/stats.h
// percentile() (linear interpolation, numpy's default), the same as the simulator's p95/p99 JCT.
#pragma once
#include "live/replay.h"

namespace dmlkit::live {

struct ReplayStats {
  // Jobs finished in both runs: the averages and gaps are over them, and mean nothing (are reported
  // null, never 0) when there are none.
  int finished_in_both = 0;
  double gap_avg_jct_s = 0;           // real - sim average JCT (model seconds)
  double gap_avg_jct_rel = 0;         // gap / sim average JCT (0 when that is 0)
  double mean_abs_job_gap_s = 0;      // mean |real - sim| over jobs finished in both
  double mean_rel_job_gap = 0;        // mean (real - sim) / sim over those with sim > 0
  double median_abs_rel_job_gap = 0;  // median over jobs of |real - sim| / sim
  int placements = 0;                 // place and move decisions
  double decide_ms_mean = 0, decide_ms_p99 = 0;
  double apply_ms_per_action_mean = 0;  // over rounds that applied something
  double start_latency_s_mean = 0, start_latency_s_p50 = 0, start_latency_s_max = 0;  // wall seconds
};

ReplayStats replay_stats(const ReplayResult& r);

}  // namespace dmlkit::live
