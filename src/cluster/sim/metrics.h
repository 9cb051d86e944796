// Summary metrics of one simulation run.
#pragma once
#include "cluster/sim/simulator.h"

namespace dmlkit::cluster {

struct Metrics {
  size_t jobs = 0;
  size_t finished = 0;
  double avg_jct_s = 0;
  double median_jct_s = 0;
  double p95_jct_s = 0;
  double p99_jct_s = 0;
  double makespan_s = 0;
  double avg_queue_s = 0;      // mean over finished jobs of (JCT - time holding GPUs)
  double gpu_utilization = 0;  // GPU-seconds held / (total GPUs * makespan)
  long preemptions = 0;
};

// Percentiles are core/stats.h percentile() (linear interpolation, numpy's default).
Metrics compute_metrics(const SimResult& result);

}  // namespace dmlkit::cluster
