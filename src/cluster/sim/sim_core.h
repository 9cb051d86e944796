// State and bookkeeping shared by the two simulation loops (sim_event.cpp: dmlkit's event-driven
// profile; sim_pollux.cpp: the Pollux reference simulator's fixed ticks): per-job state, running a
// job for a stretch of time, asking the policy for a decision, validating and applying it, and
// turning the state into a SimResult. Internal to the simulator.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cluster/sim/job_accounting.h"
#include "cluster/speed/fixed_duration_progress.h"
#include "cluster/speed/progress_model.h"
#include "cluster/speed/ps_progress.h"
#include "cluster/sim/simulator.h"
#include "cluster/speed/interference.h"

namespace dmlkit::cluster::detail {

// One job of the workload during a run. The fields a step reads and writes come first, in one
// cache line: every running job is stepped at every decision.
struct SimJob {
  bool finished = false;
  bool arrived = false;
  uint32_t version = 0;       // bumped on every placement change (stale completion events)
  int gpus = 0;               // placement_gpus(placement)
  double restart_left_s = 0;  // restart delay still to pay before the job makes progress
  double last_update_s = 0;   // time up to which the job has been run (event profile)
  // `progress` when it is a fixed-duration (trace) model: stepped inline, without a virtual call.
  FixedDurationProgress* fixed = nullptr;
  JobAccount account;  // what the policy reads: GPU-seconds and time held (restart delay included), ...
  const Job* job = nullptr;
  std::unique_ptr<JobProgress> progress;
  Placement placement;  // current placement (empty: not running)
  double first_start_s = -1;
  double finish_s = -1;
  double placed_since_s = 0;  // when the current placement was applied (SimConfig::record_placements)
};

class SimRun {
 public:
  SimRun(const ClusterSpec& cluster, const Workload& workload, const std::string& policy_name, Policy& policy,
         const SimConfig& config);

  const SimConfig& config() const { return config_; }
  size_t num_jobs() const { return jobs_.size(); }
  size_t finished_count() const { return finished_count_; }
  size_t arrived_count() const { return arrived_count_; }
  // Jobs holding GPUs after the last decision (0 before the first).
  int last_running_jobs() const { return rounds_.empty() ? 0 : rounds_.back().running_jobs; }
  SimJob& job(int j) { return jobs_[j]; }
  // Workload indices in arrival order (stable by arrival time, then index).
  const std::vector<int>& arrival_order() const { return arrival_order_; }
  // Marks job j arrived and appends it to the active list (callers respect arrival order).
  void arrive(int j);
  // Runs job j for dt_s seconds from t0_s on its current placement: restart delay first, then
  // progress. Returns true if the job finished inside the interval (finish_s is then set and the
  // job is counted finished). Stopped or finished jobs are left alone.
  bool step_job(int j, double t0_s, double dt_s);
  // Runs every running active job up to now_s (from its last update) and refreshes its view.
  void bring_running_to(double now_s);
  // Runs every running active job for dt_s seconds from t0_s and refreshes its view.
  void step_running(double t0_s, double dt_s);
  // Records job j as finished at t_s (used when the finish time is known exactly).
  void mark_finished(int j, double t_s);
  // Drops finished jobs from the active list, keeping arrival order. Moves whichever side of the
  // finished jobs is shorter (finished jobs cluster at the front under FIFO-like policies).
  void compact_active();

  // Asks the policy for the next placements of the active jobs (compact_active() first), validates
  // the decision if configured, applies it at now_s and records a RoundSample. Running jobs must
  // have been brought up to now_s by bring_running_to() or step_running() (which refresh the
  // views of the running jobs). Jobs whose placement changed are listed in changed() until the
  // next call.
  void decide(double now_s);
  // With co-location interference, also the jobs whose speed changed because a neighbour's did.
  const std::vector<int>& changed() const { return changed_; }
  // Co-location interference (SimConfig::interference): whether a placement change or a finish
  // since the last refresh may have changed running jobs' speeds. The caller then brings the
  // running jobs up to now (bring_running_to) and calls refresh_interference(), which sets each
  // running job's factor and lists in rate_changed() those whose speed changed (their completion
  // predictions are stale). decide() does both itself.
  bool interference_dirty() const { return coloc_dirty_; }
  void refresh_interference();
  const std::vector<int>& rate_changed() const { return rate_changed_; }
  // Policy::next_wakeup_s() as asked after the last decision (+inf before the first).
  double next_wakeup_s() const { return next_wakeup_s_; }

  // Reports progress through config.on_progress (at most every kProgressEvery decisions).
  void maybe_report_progress(double now_s);
  // The run as a SimResult; moves the round samples out (call once, at the end of the run).
  SimResult take_result(bool timed_out);

 private:
  // Checks out_[i] against the cluster (accumulating per-server use); throws std::logic_error.
  void validate_one(double now_s, size_t i);
  // The parameter-server part of a slice: task counts, GPUs = workers x GPUs per worker, and the
  // server's CPU, memory and bandwidth (accumulated over the pass).
  void validate_ps_slice(double now_s, const Job& job, const Slice& slice);
  // The policy listed its changes (ClusterView::changes): checks only those slots against the
  // free GPUs, applies them in slot order.
  void apply_listed(double now_s, size_t first);
  // Checks and applies every slot [first, end).
  void apply_all(double now_s, size_t first, size_t end);
  // Applies out_[i] if it differs from the job's placement.
  void apply_slot(double now_s, size_t i);
  // step_job() for a job known to be running, with its progress model's concrete type.
  template <typename Progress>
  bool step_running_job(int j, SimJob& s, Progress& progress, double t0_s, double dt_s);
  void take_gpus(const Placement& p, int sign);
  void set_running(int j, bool running);
  void move_slot(size_t from, size_t to);
  void apply(int j, const Placement& next, double now_s);
  void fill_view(int j, JobView& v) const;
  // SimConfig::record_placements: appends job j's current placement as intervals ending at end_s.
  void close_placement(int j, double end_s);
  [[noreturn]] void invalid(double now_s, const Job& job, const std::string& what) const;

  const ClusterSpec& cluster_;
  const Workload& workload_;
  std::string policy_name_;
  Policy& policy_;
  SimConfig config_;
  int total_gpus_ = 0;

  std::vector<SimJob> jobs_;
  std::vector<int> arrival_order_;
  // The active list: jobs arrived and unfinished, in arrival order, in slots [begin_, end) of
  // four parallel arrays. The policy's input (views_) and output (out_) are kept from one decision
  // to the next: a waiting job's view does not change while it waits, so a decision refreshes only
  // the views of running jobs and of jobs whose placement changed, and after a decision out_
  // already holds every job's current placement (no copying of idle jobs in steady state).
  std::vector<int> active_;  // job index per slot
  std::vector<JobView> views_;
  std::vector<Placement> out_;
  std::vector<uint32_t> cur_size_;  // views_[slot].placement.size(), packed for fast scans
  size_t begin_ = 0;                // first live slot (slots before it are spare)
  std::vector<int> slot_;           // job -> slot (-1: not active)
  size_t first_dead_ = SIZE_MAX;    // lowest / highest slot of a job finished since compaction
  size_t last_dead_ = 0;
  std::vector<int> running_;  // jobs holding GPUs (any order)
  std::vector<int> run_pos_;  // job -> index in running_ (-1: not running)
  int busy_gpus_ = 0;
  size_t finished_count_ = 0;
  size_t arrived_count_ = 0;

  // Buffers reused from one decision to the next.
  std::vector<int> changed_;
  std::vector<int> used_per_server_;  // GPUs per server over a validation pass
  std::vector<int> free_gpus_;        // GPUs per server not held by current placements
  std::vector<int> server_gpus_;      // GPUs per server (dense: read at every listed decision)
  bool jobs_dirty_ = true;            // an arrival, completion or placement change since the last decision
  bool list_dirty_ = true;            // an arrival or completion since the last decision
  std::vector<int> departed_;         // view indices (in the last decision's list) of the jobs gone since
  int arrived_since_ = 0;             // jobs arrived since the last decision
  ChangeList policy_changes_;
  bool has_ps_jobs_ = false;
  std::shared_ptr<const PsSpeedModel> ps_speed_;      // kept alive for the PS jobs' progress
  std::shared_ptr<const PsBalanceTable> ps_balance_;  // per-server CPU/memory/bandwidth checks only then
  std::vector<double> used_cpus_, used_mem_gb_, used_net_gbps_;
  std::vector<uint64_t> seen_mark_;
  uint64_t mark_ = 0;

  // Co-location interference: the model, each job's class in it (-1: not a PS job), its PS
  // progress model, the factor applied, and the buffers of a refresh.
  std::shared_ptr<const InterferenceModel> interference_;
  std::vector<int> coloc_class_;
  std::vector<PsProgress*> ps_progress_;
  std::vector<double> factor_, applied_factor_;
  Colocation coloc_;
  InterferenceScratch scratch_;
  std::vector<int> rate_changed_;
  bool coloc_dirty_ = false;

  std::vector<RoundSample> rounds_;
  std::vector<PlacementInterval> placements_;  // only with config_.record_placements
  uint64_t decisions_ = 0;
  double next_wakeup_s_ = std::numeric_limits<double>::infinity();
};

// The two loops (sim_event.cpp, sim_pollux.cpp). Both stop with timed_out when the next step would
// pass config.max_time_s, or when the run has stalled: no arrival to come and no job running (event
// profile: no completion to come), and the policy left it so for kStallDecisions decisions in a row.
inline constexpr int kStallDecisions = 1000;
SimResult run_event_profile(SimRun& run);
SimResult run_pollux_profile(SimRun& run);

}  // namespace dmlkit::cluster::detail
