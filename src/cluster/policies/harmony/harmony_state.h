// Harmony's DRL state and actions (Bao, Peng, Wu, "Deep Learning-based Job Placement in Distributed
// Machine Learning Clusters", INFOCOM 2019; second-pass.md 3.3, from a third-party reading note of
// the paper, no public code): the placement being built in one interval.
//
// State s = (x, r, w, p, v, d), concatenated in this order (row-major), over N job slots, M servers,
// L job types and K = 4 resource types (CPU cores, GPUs, memory GB, bandwidth Gbps):
//   x  N x L   one-hot job type
//   r  N x 2K  demand of one worker, then of one PS, each divided by the largest server capacity
//              of that resource [A: the scaling]
//   w  N       the job's number of workers (user-given)      p  N  its number of PSs
//   v  M x K   free share of each resource on each server (free / capacity; 0 if no capacity)
//   d  M x 2N  per server, per job slot: (workers, PSs) of the job placed there (raw counts, as
//              the paper's example [0,0,1,1,0,0,0,0,2,1,0,0])
// d covers all concurrent jobs: the new jobs being placed and the running ones.
// [A] Job slots: slots 0..N'-1 hold the new jobs of this decision (the ones actions place) in
// arrival order; slots N'..N-1 the running jobs in arrival order. Running jobs beyond those slots
// still hold their resources (v) but are not described; new jobs beyond N' are placed in a further
// round of the same interval (HarmonyPolicy). Empty slots are all zero.
//
// Actions: 2 M N'; index (n, k, m) = (2n + k) M + m places one worker (k = 0) or one PS (k = 1) of
// new job n on server m. Masked: empty slots, a kind of which the job has no task left to place,
// and servers where one more such task does not fit (every resource). One inference per task; the
// state is updated after each; a job that cannot be completed when no action is left is rolled back
// ([A] its tasks are freed and it waits for the next interval: a PS job runs only whole).
//
// [A] Ours, not the paper's (off by default, `--type-counts` of cluster train harmony, meta
// `type_counts` of a model file): a last block t, M x 2L, per server and job type the number of
// (workers, PSs) of that type there, over ALL running jobs and the tasks placed so far (d describes
// only the jobs that have a slot, and names their types only through x: an MLP must join the two to
// see which types share a server, i.e. the interference). The reward model's input gets the same
// block for the jobs it is given.
//
// [A] Ours, not the paper's (off by default, `--defer` of cluster train harmony, meta `defer` of a
// model file): N' more actions, index 2 M N' + n = "new job n waits for the next interval", allowed
// while the job has no task placed. The paper's 2 M N' actions cannot express waiting, which is
// what the `standalone` baseline does when no server is empty (and what wins under `gavel`, where
// any co-location is expensive). A deferred job leaves the state (its slot reads as empty).
//
// Heuristic actions for the epsilon-greedy exploration (second-pass.md 3.3): for the first new job
// (in slot order) with tasks left, its next task (PS or worker, keeping the two counts in the
// request's proportion, ps_pool.h next_task_is_ps), on the fitting server with the least remaining
// capacity (bin packing: smallest sum over resources of free / capacity; ties lowest id) or the
// least-loaded one (load balancing: smallest sum of used / capacity; ties lowest id).
#pragma once
#include <span>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"
#include "cluster/policies/harmony/learned_placer.h"
#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

inline constexpr int kHarmonyTypes = 8;  // L: Harmony's (and DL2's) eight job types

struct HarmonyShape {
  int servers = 6;   // M
  int jobs = 16;     // N: job slots (new + running)
  int new_jobs = 8;  // N': new-job slots (actions)
  int types = kHarmonyTypes;
  bool defer = false;  // [A] the N' "wait" actions (above)
  bool type_counts = false;  // [A] the per-server type-count block t (above)
  int type_count_size() const { return type_counts ? servers * 2 * types : 0; }
  int state_size() const {
    return jobs * types + jobs * 2 * kResources + 2 * jobs + servers * kResources + servers * 2 * jobs + type_count_size();
  }
  int place_actions() const { return 2 * servers * new_jobs; }
  int actions() const { return place_actions() + (defer ? new_jobs : 0); }
  int defer_action(int job) const { return place_actions() + job; }
  bool is_defer(int a) const { return a >= place_actions(); }
  int action(int job, int kind, int server) const { return (2 * job + kind) * servers + server; }
  int action_job(int a) const { return a / (2 * servers); }
  int action_kind(int a) const { return (a / servers) % 2; }
  int action_server(int a) const { return a % servers; }
  // Offsets of the parts in the state.
  int x_at() const { return 0; }
  int r_at() const { return jobs * types; }
  int w_at() const { return r_at() + jobs * 2 * kResources; }
  int p_at() const { return w_at() + jobs; }
  int v_at() const { return p_at() + jobs; }
  int d_at() const { return v_at() + servers * kResources; }
  int t_at() const { return d_at() + servers * 2 * jobs; }
  // Throws Error naming the field on non-positive sizes or new_jobs > jobs.
  void validate() const;
  bool operator==(const HarmonyShape&) const = default;
};

// The one-hot type index of a PS job: its Harmony type, else its DL2 type.
int harmony_type_index(const PsJobSpec& spec);

using HarmonyHeuristic = PlacementHeuristic;

class HarmonyBoard {
 public:
  HarmonyBoard(const HarmonyShape& shape, const ClusterSpec& cluster);
  const HarmonyShape& shape() const { return shape_; }

  // Starts a decision: all servers free, no job.
  void clear();
  // A running job: takes its resources and, if a running slot is left, describes it. `spec` must
  // outlive the decision. Returns its slot or -1.
  int add_running(const PsJobSpec& spec, const Placement& placement);
  // A new job to place with the user's (workers, ps): returns its slot or -1 if the N' slots are full.
  int add_new(const PsJobSpec& spec, int workers, int ps);

  void observe(float* state) const;     // shape().state_size() values
  void mask(unsigned char* mask) const;  // shape().actions() values, 1 = allowed
  bool any_action() const;
  // Places one task (the action must be allowed).
  void apply(int action);
  int heuristic_action(HarmonyHeuristic h) const;  // -1 if no action is allowed

  int new_jobs() const { return static_cast<int>(new_.size()); }
  bool complete(int n) const;  // all of new job n's tasks placed
  bool deferred(int n) const { return new_[n].deferred; }
  // Frees the tasks placed so far of new job n (it waits).
  void rollback(int n);
  // Its placement (one slice per server with workers / PSs, GPUs = workers x GPUs per worker).
  Placement placement(int n) const;
  // Counts on server m of the job in slot j (workers, PSs), for tests and the reward model.
  int workers_on(int slot, int m) const { return d_[static_cast<size_t>(m) * 2 * shape_.jobs + 2 * slot]; }
  int ps_on(int slot, int m) const { return d_[static_cast<size_t>(m) * 2 * shape_.jobs + 2 * slot + 1]; }
  const PsPool& pool() const { return pool_; }

 private:
  struct SlotJob {
    const PsJobSpec* spec = nullptr;
    int workers = 0, ps = 0;  // requested
    int placed_w = 0, placed_p = 0;
    bool deferred = false;
  };
  bool may_defer(int n) const;
  bool allowed(int n, int kind, int m) const;
  void put(int slot, int m, int kind, int count);

  HarmonyShape shape_;
  PsPool pool_;
  std::vector<double> max_cap_;       // per resource, the largest server capacity
  std::vector<SlotJob> new_, running_;
  std::vector<int> d_;                // M x 2N counts
  std::vector<int> tc_;               // M x 2L counts (type_counts)
  void count_type(int type, int m, int kind, int count);
};

// The reward-prediction model's input (second-pass.md 3.4): x (N x L one-hot types), w and p
// (N each) and d (M x 2N) of the concurrent jobs, without the demands r. One job per slot.
struct HarmonyPlacedJob {
  int type = 0;
  int workers = 0, ps = 0;
  std::vector<std::pair<int, std::pair<int, int>>> on;  // (server, (workers, PSs))
};
int harmony_reward_input_size(const HarmonyShape& shape);  // + the type-count block with shape.type_counts
// Writes the input for `jobs` (at most shape.jobs; slot i = jobs[i]).
void harmony_reward_input(const HarmonyShape& shape, std::span<const HarmonyPlacedJob> jobs, float* out);
// The description of a placed PS job.
HarmonyPlacedJob harmony_placed_job(const PsJobSpec& spec, const Placement& placement);

}  // namespace dmlkit::cluster
