// Helpers shared by the policies for parameter-server jobs: the free CPU/GPU/memory/bandwidth of
// every server, task placement into a Placement (one slice per server, tasks counted), dominant
// shares, and the next task a job with a fixed (PS, workers) request should get. See
// docs/optimus.md.
#pragma once
#include <span>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/placement.h"
#include "cluster/policy.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

inline constexpr int kResources = 4;  // cpus, gpus, mem_gb, net_gbps

inline void demand_vector(const TaskDemand& d, double out[kResources]) {
  out[0] = d.cpus;
  out[1] = d.gpus;
  out[2] = d.mem_gb;
  out[3] = d.net_gbps;
}

class PsPool {
 public:
  explicit PsPool(const ClusterSpec& cluster);
  void reset();  // everything free
  int num_servers() const { return static_cast<int>(cap_.size() / kResources); }
  bool fits(int server, const TaskDemand& d, int n = 1) const;
  bool fits(int server, const TaskDemand& a, int na, const TaskDemand& b, int nb) const;
  void add(int server, const TaskDemand& d, int n);  // n < 0 releases
  // add(server, a, na) then add(server, b, nb), with one load and tree update (the same state).
  void add(int server, const TaskDemand& a, int na, const TaskDemand& b, int nb);
  void take(const PsJobSpec& job, const Placement& p, int sign = 1);
  bool can_host(const PsJobSpec& job, const Placement& p) const;
  // Starts a decision: everything free, then the tasks of the running jobs taken; ps[i] and
  // workers[i] get job i's current PS and worker counts (0 when it is not running).
  void reset_to_running(std::span<const JobView> jobs, std::vector<int>& ps, std::vector<int>& workers);
  // Sum over resources with capacity of used / capacity on the server.
  double load(int server) const { return load_[server]; }  // kept up to date by add()
  double used(int server, int r) const { return used_[server * kResources + r]; }
  double cap(int server, int r) const { return cap_[server * kResources + r]; }
  double free(int server, int r) const { return cap(server, r) - used(server, r); }
  double total_cap(int r) const { return total_cap_[r]; }
  // Whether the empty server could hold na tasks of `a` plus nb of `b`.
  bool could_hold(int server, const TaskDemand& a, int na, const TaskDemand& b = {}, int nb = 0) const;
  // The least-loaded server (ties: lowest id) among those whose capacity could hold n tasks of `a`
  // plus m of `b` when empty, whether or not they fit now; -1 if none.
  int least_loaded(const TaskDemand& a, int na, const TaskDemand& b = {}, int nb = 0) const;
  // The least-loaded server (ties: lowest id) where n tasks of `a` plus m of `b` fit; -1 if none.
  int least_loaded_fitting(const TaskDemand& a, int na, const TaskDemand& b = {}, int nb = 0) const;

 private:
  double compute_load(int server) const;
  int least_loaded_where(bool fit_now, const TaskDemand& a, int na, const TaskDemand& b, int nb) const;
  void update_min(int server);
  void match(int node);
  void rebuild_min();

  std::vector<double> cap_, used_;
  std::vector<double> load_;  // per server: sum over resources with capacity of used / capacity
  // A tournament tree over the servers, 8 children per node (node i's are 8i+1 .. 8i+8; the
  // servers are the leaves, from first_leaf_, padded with empty leaves): min_[0] is the
  // least-loaded server (ties: lowest id), so least_loaded* answer at once when that server
  // qualifies and scan the servers only otherwise (the same answer: the scan's first server of the
  // smallest load among those that qualify). Each node also holds its winner's load (min_load_;
  // +infinity for an empty leaf), so a match compares adjacent values; an update after a server's
  // load changed replays the matches on its path (3 for up to 512 servers).
  static constexpr int kFanout = 8;
  int leaves_ = 1, first_leaf_ = 0;
  std::vector<int> min_;
  std::vector<double> min_load_;
  double total_cap_[kResources] = {0, 0, 0, 0};
};

// Adds `workers` workers and `ps` PSs of `job` on `server` to the placement.
void add_tasks(Placement& p, const PsJobSpec& job, int server, int workers, int ps);
void placement_counts(const Placement& p, int& ps, int& workers);
// max over resources of (w O + p N)[r] / cluster total[r].
double dominant_share(const PsPool& pool, const PsJobSpec& job, int ps, int workers);
// Whether the next task toward the user's (PS, workers) request is a PS (else a worker); keeps the
// two counts proportional to the request.
bool next_task_is_ps(const PsJobSpec& job, int ps, int workers);

// Places `ps` PSs and `workers` workers one task at a time, each on the least-loaded server where it
// fits (PS and worker alternating in the request's proportion), taking them from the pool. On
// failure gives everything back, clears `out` and returns false.
bool place_least_loaded(PsPool& pool, const PsJobSpec& job, int ps, int workers, Placement& out);

}  // namespace dmlkit::cluster
