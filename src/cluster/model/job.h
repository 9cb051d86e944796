// A training job as read from a workload, and the workload itself.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace dmlkit::cluster {

// How a job's progress is modelled.
enum class WorkKind {
  // Measured application profile (data/app-profiles/<application>): the job trains for a number
  // of epochs; its speed depends on its placement and batch size (Pollux-style workloads).
  Profile,
  // Trace replay: the job needs duration_s * num_gpus GPU-seconds at its requested size
  // (Philly-format traces, synthetic workloads).
  FixedDuration,
  // Parameter-server training job (Optimus/DL2 model): workers and parameter servers with
  // multi-resource demands, progress in epochs at a speed that depends on (PS, workers) and
  // placement. Its shape is Job::ps (cluster/model/ps_job.h); see docs/optimus.md.
  ParameterServer,
};

struct PsJobSpec;  // cluster/model/ps_job.h

struct Job {
  int id = 0;  // dense index 0..n-1 in arrival order
  std::string name;
  double arrival_s = 0;
  std::string application;  // profile name (bert, cifar10, ...) or "" for trace jobs
  int num_gpus = 1;         // requested GPUs (replicas)
  int batch_size = 0;       // global batch size (profile jobs)
  double duration_s = 0;    // FixedDuration: run time at the requested size
  WorkKind kind = WorkKind::FixedDuration;
  // Per-GPU demand of the other resources (used by DRF/Tetris) [A]: see docs/cluster.md.
  double cpus_per_gpu = 4.0;
  double mem_gb_per_gpu = 16.0;
  // ParameterServer jobs only (null otherwise): demands, type, epochs, loss curve.
  std::shared_ptr<const PsJobSpec> ps;
  std::string source_file;  // for error messages
  long source_line = 0;
};

struct Workload {
  std::string name;  // e.g. "workload-6" or the file stem
  std::string path;
  std::vector<Job> jobs;      // sorted stably by arrival time, ids dense in that order
  int dropped_oversized = 0;  // jobs dropped because they need more GPUs than the cluster has
};

}  // namespace dmlkit::cluster
