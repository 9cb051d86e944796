// The live controller: runs a registered cluster Policy against a real cluster manager (Slurm,
// through the ClusterBackend interface of live/cluster_backend.h; tests use the in-memory
// FakeSlurm). Every round it builds the same ClusterView / JobView the simulator builds (from the
// backend's jobs and nodes), calls the same Policy object, turns the decisions into actions (the
// pure step of live/reshape.h) and applies them:
//   place    -> place on nodes (scontrol update JobId=X NumNodes=k-k NodeList=... Gres=gpu:g
//               StartTime=now), then release
//   preempt  -> requeue_hold (scontrol requeuehold X)
//   move     -> requeue_hold, then place + release on the new nodes once Slurm shows it held
// Jobs the controller has not placed are kept held (it holds any pending job it did not release,
// e.g. one Slurm requeued after a node failure). What policies read about a job's history
// (cluster::JobAccount: attained service, preemptions, restarts) is kept exactly as the simulator
// keeps it. Its own state (dense job ids, that accounting, which jobs it released where) is a
// small JSON file written atomically after every change, so it can be killed and restarted at any
// time; everything else is re-derived from the backend.
// Security: it never runs a job's command, never gives a job more GPUs than its Slurm request, and
// refuses to start if it cannot authenticate to slurmctld (docs/live-mode.md).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/job_accounting.h"
#include "cluster/speed/progress_model.h"
#include "live/slurm_names.h"
#include "live/job_meta.h"
#include "live/job_scope.h"
#include "live/reshape.h"

namespace dmlkit::live {

struct ControllerOptions {
  std::string policy_name;
  double round_s = 60;               // model seconds between decision rounds
  double time_scale = 1.0;           // wall seconds per model second (replay: e.g. 0.01)
  double poll_s = 0.2;               // wall seconds between polls of Slurm
  bool replan_on_events = true;      // also decide when a job arrives or finishes
  std::string state_path;            // state file ("" = in memory only)
  std::string decision_log_path;     // JSON lines, one per decision ("" = none)
  std::string data_dir;              // app-profiles for the speed models (oracles)
  double default_duration_s = 3600;  // [A] fixed-duration jobs whose comment gives none
  double retry_max_s = 5.0;          // longest wait between retries when slurmctld is unreachable
  // A job released on its nodes that Slurm has not started after this many wall seconds is held
  // again and placed elsewhere: its nodes show the policy no free GPUs for 2 x this long (0: never).
  double start_timeout_s = 60;
  // Slurm 22.05 can leave GPUs counted as used on a node with no job on them (after a node
  // failure). When sinfo's used GPUs exceed the running jobs' for leak_grace_s wall seconds, the
  // controller logs it and, with repair_gres_leaks, runs `scontrol reconfigure`, which recounts.
  bool repair_gres_leaks = false;
  double leak_grace_s = 10;
  // A job that fails on its own (Slurm state FAILED or OUT_OF_MEMORY: its script exited non-zero
  // or ran out of memory) is requeued held (`scontrol requeuehold`, which Slurm allows on a
  // finished batch job) and placed again by the policy at most this many times; after that it is
  // reported as failed (failed_jobs(), the state file, `cluster status`). 0: never retried.
  int max_retries = 0;
  // [A] A decision Slurm cannot express (different GPU counts per node) with no uniform shape of
  // its GPU count free: the job waits for one, or runs narrowed (live/reshape.h, Unexpressible).
  Unexpressible unexpressible = Unexpressible::Wait;
  // The jobs and nodes it manages (`serve --partition/--account/--user`); jobs outside are never
  // touched and never shown to the policy (live/job_scope.h).
  JobScope scope;
  // `serve --dry-run`: the backend drops every change (live/dry_run_backend.h); each decision is
  // logged once per job while it stays the same (the policy would otherwise repeat it every round,
  // since nothing is applied), marked as a dry run.
  bool dry_run = false;
  // Called at the end of every poll/decide cycle of run() (also after a failed poll), on the
  // loop's thread, with the backend's wall clock: `serve`'s metrics and status page.
  std::function<void(double)> on_cycle;
  std::ostream* log = nullptr;  // human-readable log (decisions, retries); may be null
};

// Counts since the controller started (`serve`'s metrics).
struct ControllerCounters {
  int64_t preemptions = 0;  // a managed job lost its GPUs before finishing (our requeue, or Slurm's)
  int64_t restarts = 0;     // a managed job started again after having run
};

// One managed job as the status page shows it.
struct ManagedJob {
  int64_t slurm_id = 0;
  std::string name;
  std::string status;     // running | placed (released, not started yet) | waiting
  std::string placement;  // "node1:4,node2:4" (running: where it runs; placed: where it was released)
  int gpus = 0;           // the GPUs it asked for (its cap)
  double attained_gpu_s = 0;
  int preemptions = 0;
};

struct Decision {
  double model_time_s = 0;
  double wall_s = 0;  // when it was applied (seconds since the epoch)
  int64_t slurm_id = 0;
  std::string job_name;
  std::string action;     // place, preempt, move, hold
  std::string placement;  // "node1:2,node2:2" (place/move)
  std::string note;       // e.g. "narrowed to uniform GPUs per node"
};

// A job the controller gave up on: it failed on its own more than max_retries times.
struct FailedJob {
  int64_t slurm_id = 0;
  std::string name;
  std::string state;  // Slurm's final state (FAILED, OUT_OF_MEMORY)
  int retries = 0;    // times it was requeued after failing
  double wall_s = 0;  // when the controller saw the last failure
};

struct RoundStat {
  double model_time_s = 0;
  double decide_ms = 0;    // building the view + policy + turning decisions into actions
  double apply_ms = 0;     // scontrol calls
  int actions = 0;         // decisions applied
  int slurm_commands = 0;  // scontrol calls made to apply them
  int active_jobs = 0;
};

class Controller {
 public:
  Controller(ClusterBackend& backend, cluster::Policy& policy, ControllerOptions options);
  ~Controller();

  // Checks that the backend answers and authenticates us (waits and retries while it is
  // unreachable, until `give_up` returns true) and loads the state file. Throws Error if it refuses
  // our credentials or we lack operator rights.
  void start(const std::function<bool()>& give_up = {});

  // Updates the accounting (attained service, executed time, oracles) from a poll taken at
  // `wall_s` (seconds since the epoch, on the backend's clock). Returns true if a job arrived or
  // finished, or a deferred restart may now go ahead.
  bool observe(const SlurmSnapshot& snap, double wall_s);
  // One decision round on the last observed snapshot: asks the policy and applies its decisions.
  RoundStat round(double wall_s);
  // Poll / decide loop until `stop` returns true, on the backend's clock. Never throws for Slurm
  // being unreachable: it logs and retries with back-off. `on_poll` (may be empty) sees every
  // snapshot (replay's emulator).
  // When `stop` ends the loop, the state file is written once more with the stop time (a clean
  // stop: `cluster status` shows it).
  void run(const std::function<bool()>& stop, const std::function<void(const SlurmSnapshot&, double)>& on_poll = {});

  double model_time(double wall_s) const { return (wall_s - t0_wall_s_) / options_.time_scale; }
  double t0_wall_s() const { return t0_wall_s_; }
  void set_t0_wall_s(double t) { t0_wall_s_ = t; }
  const std::vector<Decision>& decisions() const { return decisions_; }
  const std::vector<RoundStat>& rounds() const { return rounds_; }
  // Jobs the controller has seen finish (Slurm ids).
  const std::set<int64_t>& finished() const { return finished_; }
  // Jobs it gave up on after max_retries retries (kept in the state file).
  const std::vector<FailedJob>& failed_jobs() const { return failed_jobs_; }
  // Jobs pending or running that the controller tracks (after the last observe).
  size_t tracked_jobs() const { return jobs_.size(); }
  // The tracked jobs shown to the policy at the last observe, by Slurm id.
  std::vector<ManagedJob> managed_jobs() const;
  // The last poll: nodes in scope, every job Slurm listed.
  const SlurmSnapshot& last_snapshot() const { return snap_; }
  const ControllerCounters& counters() const { return counters_; }
  // A job's placement as the policy and the speed model see it on `alloc`: GPU slices, or for a
  // parameter-server job its workers and PSs (the policy's task placement when `alloc` is what it
  // was placed as, else its workers spread over alloc's GPUs and its PSs where the policy put
  // them). Empty for a job the controller does not track.
  cluster::Placement placement_of(int64_t slurm_id, const Alloc& alloc) const;
  // What the policy reads about a tracked job's history (null if the controller does not track it).
  const cluster::JobAccount* account(int64_t slurm_id) const;

 private:
  struct Segment {
    cluster::Placement placement;
    double seconds = 0;
  };
  struct Tracked {
    int64_t slurm_id = 0;
    cluster::Job job;             // job.id: dense id, stable across restarts
    int cap_gpus = 0;             // never place more than this (the user's request)
    bool released = false;        // the controller released it with `decided`
    double released_wall_s = 0;   // when (transient: after a restart, from the restart on)
    Alloc decided;                // node, GPUs
    cluster::JobAccount account;  // what the policy reads (shared with the simulator)
    bool was_running = false;
    int failures = 0;              // times it failed on its own and was requeued (ControllerOptions::max_retries)
    bool restart_pending = false;  // preempted to be placed elsewhere (transient, not saved)
    // Nodes it was requeued from and when (wall s): slurmd refuses to launch a job in the same
    // second its previous run there was killed ("Job N already killed"), so a restart on one of
    // those nodes waits until requeue_ready_wall_s (transient, not saved).
    std::vector<std::string> requeued_nodes;
    double requeue_ready_wall_s = 0;
    Alloc last_alloc;  // last observed running allocation
    // The policy's last decision (a parameter-server job: its task placement, workers and PSs per
    // server) and the Slurm allocation it was placed as. While the job holds that allocation a PS
    // job's view shows the tasks, and the same decision again keeps the allocation (PS jobs, and
    // any job with Unexpressible::Wait: a 4+2+2 decision running as 2x4 is not reshaped again).
    cluster::Placement last_decision;                // state-file key "tasks"
    Alloc decision_alloc;                            // state-file key "tasks_alloc"
    std::string ps_meta;                             // the comment's PS part (state file: the job is rebuilt from it)
    std::vector<Segment> segments;                   // oracle history (placement, model seconds)
    std::unique_ptr<cluster::JobProgress> progress;  // oracle
    const SlurmJob* slurm = nullptr;                 // this poll's record (valid until the next observe)
  };
  // What observe() found in one poll.
  struct Observed {
    bool event = false;    // a round should follow
    bool changed = false;  // the state file must be written
    std::set<int64_t> seen;
  };
  // The policy's input for one round, with the planner's view of each job.
  struct RoundInput {
    cluster::ClusterSpec cluster;  // usable GPUs only
    std::vector<Tracked*> order;   // by arrival, then dense id
    std::vector<cluster::JobView> views;
    std::vector<PlanJob> plan;
  };

  // start()
  void connect(const std::function<bool()>& give_up);
  // state file
  void load_state();
  void save_state() const;
  void log_decision(const Decision& d);
  void log_line(const std::string& line) const;
  // observe()
  void observe_job(const SlurmJob& j, double model_now, double dt, double wall_s, Observed& o);
  void forget_departed(Observed& o);
  // A tracked job Slurm reports finished: retried (requeued held) if it failed on its own and has
  // retries left, else forgotten (and recorded in failed_jobs_ if it failed). True if retried.
  bool retry_failed(const SlurmJob& j, Tracked& t, double model_now, double dt, double wall_s);
  Tracked& track(const SlurmJob& j, double model_now, double wall_s);
  void make_oracle(Tracked& t) const;
  void credit_run(Tracked& t, double dt);
  void note_started(Tracked& t, const Alloc& alloc);
  void note_stopped(Tracked& t, double model_now, double wall_s);
  // round()
  std::vector<int64_t> unplaced_pending();
  // Released jobs Slurm has not started within start_timeout_s: held again, their nodes shunned.
  void take_back_unstarted(double now, double wall_s);
  // GPUs Slurm counts as used that no running job holds (see ControllerOptions::repair_gres_leaks).
  void check_gres_leaks(double wall_s);
  cluster::ClusterSpec usable_cluster() const;
  RoundInput build_round_input();
  void hold_unplaced(const std::vector<int64_t>& ids, double model_now, double wall_s);
  void apply_stop(const PlannedAction& a, Tracked& t, double model_now, double wall_s);
  void apply_start(const PlannedAction& a, Tracked& t, double model_now, const cluster::Placement& decided);
  cluster::Placement job_placement(const Tracked& t, const Alloc& alloc) const;
  void make_ps_job(Tracked& t, const JobMeta& meta);
  int server_of(const std::string& node) const;
  cluster::Placement to_placement(const Alloc& alloc) const;

  ClusterBackend& backend_;
  cluster::Policy& policy_;
  ControllerOptions options_;
  double t0_wall_s_ = 0;
  double last_observe_wall_s_ = 0;
  int next_dense_id_ = 0;
  std::map<int64_t, Tracked> jobs_;  // by Slurm id
  // Speed of parameter-server jobs for their oracles (made at the first PS job).
  mutable std::shared_ptr<const cluster::PsSpeedModel> ps_speed_;
  mutable std::shared_ptr<const cluster::PsBalanceTable> ps_balance_;
  // Nodes Slurm did not start a released job on within start_timeout_s, until when (wall s): the
  // policy sees no free GPUs there meanwhile.
  std::map<std::string, double> shunned_until_;
  std::map<std::string, double> leak_since_;  // node -> wall s since its used GPUs exceed the jobs'
  bool leak_reported_ = false;
  std::set<int64_t> finished_;
  std::vector<FailedJob> failed_jobs_;
  double stopped_wall_s_ = 0;        // when run() returned (0: running, or never stopped cleanly)
  double last_decision_wall_s_ = 0;  // from the state file (decisions_ holds this run's only)
  // Keeps the nodes of the scope's partitions (jobs stay: foreign running jobs hold GPUs).
  void keep_scope_nodes(SlurmSnapshot& snap) const;
  bool repeated_dry_decision(const Decision& d);

  ControllerCounters counters_;
  std::map<int64_t, std::string> dry_logged_;  // dry run: the last decision logged per job
  SlurmSnapshot snap_;
  std::unordered_map<std::string, int> server_index_;  // node name -> server index of the last snapshot
  std::vector<Decision> decisions_;
  std::vector<RoundStat> rounds_;
};

}  // namespace dmlkit::live
