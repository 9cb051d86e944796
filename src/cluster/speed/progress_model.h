// How a job progresses when it holds GPUs: the per-job speed model behind the simulator.
// Two kinds: measured application profiles (profile_progress.cpp) and fixed-duration trace
// replay (fixed_duration_progress.cpp). A JobProgress is also the job's JobOracle.
#pragma once
#include <memory>
#include <string>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/job.h"
#include "cluster/model/placement.h"
#include "cluster/policy.h"

namespace dmlkit::cluster {

class PsSpeedModel;    // cluster/speed/ps_speed.h
class PsBalanceTable;  // cluster/speed/ps_assignment.h

class JobProgress : public JobOracle {
 public:
  // The job restarts on `placement` (empty: it is stopped). Called by the simulator whenever the
  // placement changes; the restart delay itself is handled by the simulator.
  virtual void on_placement(const Placement& placement) = 0;
  // Runs the job for up to dt_s seconds on its current placement; returns the seconds actually
  // used, which is less than dt_s only if the job finished inside the interval.
  virtual double advance(double dt_s) = 0;
  virtual bool finished() const = 0;
  // Seconds the job needs to finish if it keeps its current placement (infinity if stopped).
  virtual double time_to_finish_s() const = 0;
};

struct ProgressOptions {
  std::string data_dir;           // folder holding app-profiles/
  bool pollux_semantics = false;  // round epoch crossings to whole seconds etc. (reference profile)
  // FixedDuration jobs: fractional slowdown per server a job uses beyond the fewest that could
  // hold its useful GPUs (0 = off, the trace-replay default) [A]; see docs/cluster-speed-models.md.
  double extra_server_slowdown = 0.0;
  // GPUs per server used to count "the fewest servers" above (0 = unknown: no slowdown).
  int gpus_per_server = 0;
  // ParameterServer jobs (docs/optimus.md): ground-truth speed model, PS load balance of the
  // assignment in use (null: as measured), measurement noise (relative standard deviation) and
  // straggler injection (each worker, at every (re)start, is slowed by U[min, max] with
  // probability `prob`).
  std::shared_ptr<const PsSpeedModel> ps_speed;
  std::shared_ptr<const PsBalanceTable> ps_balance;
  double ps_measure_noise = 0.05;
  double ps_straggler_prob = 0.0;
  double ps_straggler_min = 1.5;
  double ps_straggler_max = 3.0;
};

// Creates the progress model for `job` (by job.kind). Throws Error naming the job's source file,
// line and field `application` if the application has no profile.
std::unique_ptr<JobProgress> make_job_progress(const Job& job, const ProgressOptions& options);

}  // namespace dmlkit::cluster
