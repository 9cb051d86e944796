// Placement-only scheduling of parameter-server jobs (Harmony, INFOCOM'19: second-pass.md 3.1): each
// job comes with the user's numbers of PSs and workers; a policy only answers "on which servers do
// this new job's tasks go". The base class does the rest, the same for every placement policy
// (the baselines here and the learned `harmony`):
//   - a job is placed once, all its tasks together (gang), when it starts; it is never moved;
//   - a job that cannot be placed whole waits (its partial tasks are taken back) and is offered
//     again at the next decision; later jobs may start before it (no head-of-line blocking) [A];
//   - the waiting jobs are offered in arrival order, at every decision the simulator asks for
//     (the experiment presets decide at slot boundaries only: Harmony's per-interval batches);
//   - capacity (CPU, GPU, memory, reserved bandwidth per server) is checked by PlacementState, so a
//     policy can only choose among servers with room (the mask of Harmony's actions);
//   - the result becomes the simulator's Placement: one Slice per server with the job's worker and
//     PS counts on it (gpus = workers x GPUs per worker).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cluster/policies/ps/ps_pool.h"
#include "cluster/policy.h"

namespace dmlkit::cluster {

enum class TaskRole { Worker = 0, Ps = 1 };

// The cluster as a decision sees it: the running jobs' tasks, plus the tasks placed so far in this
// decision, per job and server (Harmony's placement matrix d), and each server's free resources.
class PlacementState {
 public:
  // Starts a decision for `jobs` (the policy's job list): running jobs' placements taken.
  void reset(const ClusterSpec& cluster, std::span<const JobView> jobs);

  const ClusterSpec& cluster() const { return *cluster_; }
  int num_servers() const { return servers_; }
  int num_jobs() const { return static_cast<int>(jobs_.size()); }
  const JobView& job(int i) const { return jobs_[static_cast<size_t>(i)]; }
  const PsJobSpec& spec(int i) const { return *jobs_[static_cast<size_t>(i)].job->ps; }
  const TaskDemand& demand(int i, TaskRole r) const { return r == TaskRole::Worker ? spec(i).worker : spec(i).ps; }
  // Free resources and capacity (k: 0 CPU cores, 1 GPUs, 2 memory GB, 3 reserved Gbps).
  const PsPool& pool() const { return *pool_; }
  bool fits(int i, TaskRole r, int server) const { return pool_->fits(server, demand(i, r)); }

  // Tasks of job i on a server (running or placed in this decision), and in total.
  int workers_on(int i, int server) const { return counts_[index(i, server)].workers; }
  int ps_on(int i, int server) const { return counts_[index(i, server)].ps; }
  int tasks_on_server(int server) const { return server_tasks_[static_cast<size_t>(server)]; }
  int placed_workers(int i) const { return placed_[static_cast<size_t>(i)].workers; }
  int placed_ps(int i) const { return placed_[static_cast<size_t>(i)].ps; }
  // Tasks of job i still to place: the user's counts minus those placed.
  int workers_left(int i) const { return spec(i).user_workers - placed_workers(i); }
  int ps_left(int i) const { return spec(i).user_ps - placed_ps(i); }
  bool complete(int i) const { return workers_left(i) <= 0 && ps_left(i) <= 0; }
  // Whether another job (not i) has tasks on the server.
  bool others_on(int i, int server) const { return tasks_on_server(server) > workers_on(i, server) + ps_on(i, server); }
  bool running(int i) const { return jobs_[static_cast<size_t>(i)].running(); }
  // Counts the decisions (reset() calls), so a policy can cache per-job facts for one decision.
  uint64_t decision() const { return decision_; }

  // Places one task of job i (not running) on the server; false (nothing changed) if it does not
  // fit or the job needs no more tasks of that role.
  bool add_task(int i, TaskRole r, int server);
  // Takes back every task placed for job i in this decision.
  void remove_job(int i);
  // Job i's placement as the simulator takes it (servers in id order).
  void placement_of(int i, Placement& out) const;

 private:
  struct Counts {
    int workers = 0;
    int ps = 0;
  };
  size_t index(int i, int server) const { return static_cast<size_t>(i) * servers_ + static_cast<size_t>(server); }
  const ClusterSpec* cluster_ = nullptr;
  std::unique_ptr<PsPool> pool_;
  std::span<const JobView> jobs_;
  size_t servers_ = 0;
  std::vector<Counts> counts_;  // jobs x servers
  std::vector<Counts> placed_;  // per job
  std::vector<int> server_tasks_;
  std::vector<int> scratch_ps_, scratch_workers_;
  uint64_t decision_ = 0;
};

class PlacementPolicy : public Policy {
 public:
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) final;
  bool handles_ps_jobs() const override { return true; }

 protected:
  // Places tasks of the waiting jobs `waiting` (indices into the job list, arrival order) with
  // state.add_task. A job left incomplete is taken back by the caller. The default offers each job
  // in turn to place_job() and takes it back at once if incomplete (so it holds nothing another
  // job could use); the learned policy overrides it to interleave jobs' tasks.
  virtual void place_batch(PlacementState& state, std::span<const int> waiting);
  // Places all tasks of job i, or as many as it can.
  virtual void place_job(PlacementState& state, int i) = 0;

 private:
  PlacementState state_;
  std::vector<int> waiting_;
};

// A policy that places a job's tasks one at a time, each on the server with the best score among
// those where it fits (ties: lowest id). Tasks alternate between worker and PS keeping the user's
// proportion (next_task_is_ps, ps_pool.h) [A].
class GreedyTaskPlacement : public PlacementPolicy {
 public:
  struct Score {
    double primary = 0;
    double secondary = 0;
    bool operator<(const Score& o) const {
      return primary != o.primary ? primary < o.primary : secondary < o.secondary;
    }
  };

 protected:
  // Lower is better; asked only for servers where the task fits and eligible() holds.
  virtual Score score(const PlacementState& state, int i, TaskRole role, int server) const = 0;
  virtual bool eligible(const PlacementState& /*state*/, int /*i*/, int /*server*/) const { return true; }
  void place_job(PlacementState& state, int i) override;
};

// The scores the baselines use (also the learned policy's exploration heuristics): the server's
// load, sum over resources with capacity of used / capacity (ps_pool.h), and its remaining
// capacity, sum over them of free / capacity.
double server_load(const PlacementState& state, int server);
double server_remaining(const PlacementState& state, int server);
// The least-loaded (load balancing) / least-remaining-capacity (bin packing) server where a task
// of job i in `role` fits; -1 if none. Ties: lowest id.
int least_loaded_server(const PlacementState& state, int i, TaskRole role);
int tightest_server(const PlacementState& state, int i, TaskRole role);

}  // namespace dmlkit::cluster
