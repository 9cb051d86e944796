// DL2's per-slot decision process (Peng et al., "DL2: A Deep Learning-driven Scheduler for Deep
// Learning Clusters", IEEE TPDS 2021; the authors' simulator pengyanghua/DL2, read in code:
// rl_env.py RL_Env._prepare / step, scheduler_base.py Scheduler.observe / _state; spec
// cluster-schedulers.md 3.1-3.3): allocations are rebuilt from zero every slot, every unfinished
// job first gets one worker + one PS on the least-loaded server, then one task (or bundle) is added
// per network inference until the network says VOID or the least-loaded server cannot host it.
//
// State: 6 rows x L columns (row-major, index row * L + col), one column per job of the window
// (the unfinished jobs in arrival order, ties by id, leaving out jobs that already have 16 workers
// AND 16 PSs; the first L), zero-padded:
//   0 job type id (1..8)     1 slots in the system (current slot - arrival slot)
//   2 remaining work 1 - progress / E       3 dominant share max_r (w O + p N)[r] / C[r]
//   4 workers w              5 PSs p
// Actions: 3L + 1: 3i = add a worker to column i, 3i+1 = add a PS, 3i+2 = add both (bundle),
// 3L = VOID (end the slot). Masks: every action of an empty column; worker if w >= 16; PS if
// p >= 16; bundle if either.
// Least-loaded server [C rl_env.py node_used_resr_queue]: the server with the smallest sum of
// used/capacity over its resources (ties: lowest id) among those whose capacity could hold the
// task (all of DL2's identical servers; on mixed clusters a server that never could is skipped,
// as PsPool::least_loaded does for the DL2 heuristics); if the task does not fit there now, the
// slot ends (the authors' priority queue pops that server and gives up), and the step is not stored.
// [A] "Slots in the system" is measured in whole slots of the run's round length:
//     floor((now - arrival) / round + 1e-9).
#pragma once
#include <span>
#include <vector>

#include "cluster/policies/ps/ps_pool.h"
#include "cluster/policy.h"
#include "core/rng.h"

namespace dmlkit::cluster {

inline constexpr int kDl2Rows = 6;

struct Dl2Shape {
  int window = 20;       // L (SCHED_WINDOW_SIZE)
  int max_workers = 16;  // MAX_NUM_WORKERS
  int max_ps = 16;       // DL2 caps PSs with the same constant
  int state_size() const { return kDl2Rows * window; }
  int actions() const { return 3 * window + 1; }
  int void_action() const { return 3 * window; }
};

enum class Dl2Task { Worker = 0, Ps = 1, Bundle = 2 };

// The allocation being built in one slot: each active job's worker and PS counts, its dominant
// share, the servers' load, and the window/state/mask derived from them. Allocation-free after
// the first slot of a given size.
class Dl2Slot {
 public:
  explicit Dl2Slot(const Dl2Shape& shape) : shape_(shape) {}
  const Dl2Shape& shape() const { return shape_; }

  // Starts a slot: everything free, every output cleared; with `initial_bundle`, each job in view
  // order gets one worker + one PS on the least-loaded server if they fit there (DL2's
  // ASSIGN_BUNDLE, rl_env.py _prepare), else nothing.
  void begin(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out, bool initial_bundle);

  // The window (which job each column shows, -1 = empty), in arrival order; with `shuffle`, the
  // jobs are dealt to columns in a random permutation of 0..L-1 (SL's JOB_ORDER_SHUFFLE).
  void select_window(Rng* shuffle);
  // select_window(nullptr) if the window may have changed since the last call (after begin, or
  // once a job reached both caps and leaves it; no other change moves a job in or out); returns
  // whether it did. Within a slot the window is otherwise the same, so the caller updates only the
  // acting job's column of the state and the mask (observe_column, mask_column).
  bool refresh_window();
  // Fills state (state_size()) and mask (actions(); 1 = allowed) for the current window.
  void observe(float* state) const;
  void mask(unsigned char* mask) const;
  // The same for column `col` only (its 6 state values, its 3 actions).
  void observe_column(float* state, int col) const;
  void mask_column(unsigned char* mask, int col) const;
  // Whether some job action is allowed (else the slot ends without a sample).
  bool any_job_action() const;
  int window_job(int col) const { return window_[col]; }
  int column_of(int job) const;  // -1 if not in the window

  // Adds the action's task(s) for job `job` on the least-loaded server; false (nothing changed) if
  // they do not fit there.
  bool add(int job, Dl2Task task, std::span<Placement> out);
  // Adds without placing (teachers that place on their own: only the counts and the share move).
  void count(int job, Dl2Task task);

  int workers(int job) const { return w_[job]; }
  int ps(int job) const { return p_[job]; }
  double dominant_share(int job) const { return share_[job]; }
  // Overrides a job's dominant share (the SL recorder keeps DL2's stale share of a job not yet
  // touched in this slot, see dl2_teacher.h).
  void set_dominant_share(int job, double share) { share_[job] = share; }
  size_t jobs() const { return jobs_.size(); }
  const PsPool& pool() const { return *pool_; }

 private:
  void update_share(int job);

  Dl2Shape shape_;
  std::unique_ptr<PsPool> pool_;
  std::span<const JobView> jobs_;
  std::vector<int> w_, p_;
  std::vector<double> share_;
  std::vector<float> type_, stay_, remaining_;
  std::vector<int> window_, order_;
  std::vector<int> perm_;
  bool window_stale_ = true;
};

}  // namespace dmlkit::cluster
