// Workload readers: Pollux-style workload CSVs, the Philly trace, synthetic workloads. The format
// of a file is recognised from its header.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/job.h"

namespace dmlkit::cluster {

// Physical bounds of a trace row (docs/cluster-workloads.md): an arrival time or duration is at most
// kMaxTraceTime_s (about 31.7 years; the simulator stops at 1e10 s), a CPU or memory demand per GPU
// at most kMaxDemandPerGpu. A value beyond is refused (file, line, column), never simulated.
inline constexpr double kMaxTraceTime_s = 1e9;
inline constexpr double kMaxDemandPerGpu = 1e6;

struct WorkloadOptions {
  std::string data_dir;  // bundled data folder (default: DMLKIT_DATA_DIR)
  // Philly trace: keep jobs submitted in [window_start_s, window_end_s) counted from the first
  // submission of the (filtered) trace; a negative end means "to the end".
  double window_start_s = 0;
  double window_end_s = -1;
  std::vector<std::string> virtual_clusters;  // Philly: keep only these `cluster` values
  // Jobs needing more GPUs than the cluster has: rejected with an Error naming file/line/field,
  // or dropped and counted if drop_oversized. cluster_gpus <= 0 disables the check.
  int cluster_gpus = 0;
  bool drop_oversized = false;
};

// Resolves a bundled name (e.g. "pollux-6", "pollux-0.5-3", "philly", "tiresias-60") or a path.
std::string resolve_workload_path(const std::string& name_or_path, const std::string& data_dir);
// Reads a workload, recognising the format from the header:
//   name,time,application,num_replicas,batch_size            -> Pollux-style (WorkKind::Profile)
//   timestamp,duration,num_gpus,gpu_time,cluster            -> Philly trace (FixedDuration)
//   name,time,num_gpus,duration[,application]               -> dmlkit trace (FixedDuration)
//   job_id,num_gpu,submit_time,...,duration,...             -> Tiresias simulator's trace (FixedDuration)
Workload load_workload(const std::string& name_or_path, const WorkloadOptions& options);

struct SyntheticSpec {
  int num_jobs = 100;
  double arrival_rate_per_s = 1.0 / 120.0;  // Poisson arrivals
  // Job mix: GPU counts and their weights; durations log-normal (median, sigma) [A].
  std::vector<int> gpu_choices = {1, 2, 4, 8};
  std::vector<double> gpu_weights = {0.7, 0.15, 0.1, 0.05};
  double duration_median_s = 1144;  // the Philly trace's median duration
  double duration_sigma = 1.5;
};
Workload synthetic_workload(const SyntheticSpec& spec, uint64_t seed);

}  // namespace dmlkit::cluster
