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
#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

inline constexpr int kHarmonyTypes = 8;  // L: Harmony's (and DL2's) eight job types

struct HarmonyShape {
  int servers = 6;   // M
  int jobs = 16;     // N: job slots (new + running)
  int new_jobs = 8;  // N': new-job slots (actions)
  int types = kHarmonyTypes;
  int state_size() const { return jobs * types + jobs * 2 * kResources + 2 * jobs + servers * kResources + servers * 2 * jobs; }
  int actions() const { return 2 * servers * new_jobs; }
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
  // Throws Error naming the field on non-positive sizes or new_jobs > jobs.
  void validate() const;
  bool operator==(const HarmonyShape&) const = default;
};

// The one-hot type index of a PS job: its Harmony type, else its DL2 type.
int harmony_type_index(const PsJobSpec& spec);

enum class HarmonyHeuristic { BinPacking, LoadBalancing };

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
  };
  bool allowed(int n, int kind, int m) const;
  void put(int slot, int m, int kind, int count);

  HarmonyShape shape_;
  PsPool pool_;
  std::vector<double> max_cap_;       // per resource, the largest server capacity
  std::vector<SlotJob> new_, running_;
  std::vector<int> d_;                // M x 2N counts
};

// The reward-prediction model's input (second-pass.md 3.4): x (N x L one-hot types), w and p
// (N each) and d (M x 2N) of the concurrent jobs, without the demands r. One job per slot.
struct HarmonyPlacedJob {
  int type = 0;
  int workers = 0, ps = 0;
  std::vector<std::pair<int, std::pair<int, int>>> on;  // (server, (workers, PSs))
};
int harmony_reward_input_size(const HarmonyShape& shape);
// Writes the input for `jobs` (at most shape.jobs; slot i = jobs[i]).
void harmony_reward_input(const HarmonyShape& shape, std::span<const HarmonyPlacedJob> jobs, float* out);
// The description of a placed PS job.
HarmonyPlacedJob harmony_placed_job(const PsJobSpec& spec, const Placement& placement);

}  // namespace dmlkit::cluster
