// The cluster-level simulator: replays a workload on a cluster under one policy and records
// per-job and per-round metrics. Deterministic for given inputs.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/job.h"
#include "cluster/policy.h"

namespace dmlkit::cluster {

class PsSpeedModel;       // cluster/speed/ps_speed.h
class InterferenceModel;  // cluster/speed/interference.h

enum class SimProfile {
  // dmlkit's own semantics: event-driven completions and arrivals, scheduling rounds.
  Default,
  // The Pollux reference simulator's semantics (docs/cluster.md, specs/pollux-reference-semantics).
  Pollux,
  // The Tiresias authors' simulator's semantics (SymbioticLab/Tiresias, simulator/run_sim.py):
  // the event-driven loop re-planning at every arrival, completion and policy wake-up, with no
  // rounds and no restart cost; tiresias_sim_config() sets these (docs/cluster-simulator.md).
  TiresiasSim,
};

struct SimConfig {
  SimProfile profile = SimProfile::Default;
  double round_s = 60.0;           // scheduling round length; +inf: no rounds (event-driven profiles)
  double restart_delay_s = 30.0;   // charged whenever a job's placement changes
  bool charge_first_start = true;  // also charge the restart delay when a job first starts
  // Cluster-manager latencies (model seconds; 0 = an ideal manager), set from a live run's
  // calibration file (cluster/sim/calibration.h): how long after its arrival the scheduler sees a
  // job (its JCT still counts from the arrival); extra delay of a job's first start and of every
  // later start, paid like the restart delay (GPUs held, no progress) whether or not the policy
  // charges restarts.
  double arrival_latency_s = 0.0;
  double start_latency_s = 0.0;
  double restart_latency_s = 0.0;
  // Fixed-duration jobs: fractional slowdown per server used beyond the fewest that could hold the
  // job (0 = off) [A]; profile jobs get this from their measured step times instead.
  double extra_server_slowdown = 0.0;
  bool schedule_on_events = true;  // Default profile: also re-plan on arrivals and completions
  bool validate = true;            // check every decision against capacities
  double max_time_s = 1e10;        // safety stop (a job that never runs must not hang the run)
  std::string data_dir;            // folder with app-profiles/ (defaults to the bundled data)
  // Parameter-server jobs (docs/optimus.md): the ground-truth speed model (null: "table" from
  // data_dir), relative measurement noise and straggler injection (see ProgressOptions).
  std::shared_ptr<const PsSpeedModel> ps_speed;
  double ps_measure_noise = 0.05;
  double ps_straggler_prob = 0.0;
  double ps_straggler_min = 1.5;
  double ps_straggler_max = 3.0;
  // Elastic scaling cost of a policy that re-allocates in place (Policy::charges_restarts() false,
  // e.g. DL2): seconds of progress a PS job loses per worker / PS added or removed when its
  // allocation changes (DL2 spec 3.7, its [A] defaults 1 s and 3 s). 0: free, as in the DL2
  // authors' simulator. A policy that charges restarts pays restart_delay_s instead.
  double ps_scale_cost_worker_s = 0.0;
  double ps_scale_cost_ps_s = 0.0;
  // Co-location interference of parameter-server jobs (Harmony's world, docs/harmony.md): each
  // job's speed is multiplied by the factor this model gives for what shares its servers,
  // recomputed when a placement changes or a job finishes. Null: none.
  std::shared_ptr<const InterferenceModel> interference;
  // Keep every placement interval (SimResult::placements: which job held what on which server,
  // when), for a Chrome/Perfetto trace (`cluster simulate --trace`). Off: nothing is recorded and
  // nothing allocated for it.
  bool record_placements = false;
  // Called with (simulated time, jobs finished, jobs total) a few times per second of wall time
  // at most; may be empty.
  std::function<void(double, size_t, size_t)> on_progress;
};

struct JobRecord {
  int id = 0;
  std::string name;
  std::string application;
  int num_gpus = 0;  // requested
  double arrival_s = 0;
  double first_start_s = -1;
  double finish_s = -1;   // -1 if it did not finish
  double executed_s = 0;  // wall time holding GPUs
  double gpu_s = 0;       // GPU-seconds held
  int preemptions = 0;
  int restarts = 0;
  bool finished() const { return finish_s >= 0; }
  double jct_s() const { return finish_s - arrival_s; }
  double queued_s() const { return jct_s() - executed_s; }
};

struct RoundSample {
  double time_s = 0;
  int gpus_busy = 0;
  int running_jobs = 0;
  int queued_jobs = 0;  // arrived, unfinished, not running
};

// One job on one server from start_s to end_s (SimConfig::record_placements).
struct PlacementInterval {
  int job = 0;     // JobRecord::id
  int server = 0;  // index into the cluster's servers
  int gpus = 0;
  int workers = 0;  // parameter-server jobs: tasks on the server
  int ps = 0;
  double start_s = 0, end_s = 0;
};

struct SimResult {
  std::string policy;
  std::vector<JobRecord> jobs;      // in job id order
  std::vector<RoundSample> rounds;  // one per scheduling decision
  double makespan_s = 0;            // last finish time minus first arrival
  int total_gpus = 0;
  int dropped_oversized = 0;
  bool timed_out = false;  // max_time_s reached with unfinished jobs
  // With SimConfig::record_placements: every interval a job held a server, in the order they
  // ended (intervals still open at the end of the run end at the last decision).
  std::vector<PlacementInterval> placements;
};

// The configuration of SimProfile::TiresiasSim: no rounds (round_s = +inf), restart delay 0 (also on
// a first start), re-planning at every arrival and completion; the rest as SimConfig's defaults.
SimConfig tiresias_sim_config();

// What a --profile brings when the user does not say otherwise: its SimConfig and the placement of
// policies that place GPU counts (tiresias-sim: first-fit, which decides as the authors' placement
// by count). Error naming --profile for an unknown name.
struct ProfileDefaults {
  SimConfig config;
  PlacementKind placement = PlacementKind::Consolidate;
};
ProfileDefaults profile_defaults(const std::string& profile);

// Runs the simulation. Throws Error on bad input (e.g. an application with no profile) and
// std::logic_error if the policy returns an invalid decision while config.validate is set.
SimResult simulate(const ClusterSpec& cluster, const Workload& workload, const std::string& policy_name, Policy& policy,
                   const SimConfig& config);

}  // namespace dmlkit::cluster
