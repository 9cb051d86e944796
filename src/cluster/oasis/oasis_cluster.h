// Servers of the OASiS model and the per-slot ledger of what every method allocated on them.
// Workers and PSs live on separate server pools by default (second-pass.md 1: workers on servers
// h, PSs on servers k, prices p_h^r(t) and q_k^r(t)); the shared-pool option puts both on every
// server (the older spec 5.1).
#pragma once
#include <string>
#include <vector>

#include "cluster/oasis/oasis_job.h"

namespace dmlkit::cluster::oasis {

enum class Pool { Worker, Ps, Shared };

struct OasisServer {
  Pool pool = Pool::Worker;
  ResourceVec capacity{};
};

struct OasisCluster {
  std::vector<OasisServer> servers;
  int horizon_slots = 300;
  bool shared_pool() const { return !servers.empty() && servers.front().pool == Pool::Shared; }
  // May a worker (ps = false) or a PS (ps = true) run on server h?
  bool hosts(int h, bool ps) const {
    const Pool p = servers[h].pool;
    return p == Pool::Shared || (ps ? p == Pool::Ps : p == Pool::Worker);
  }
  int num_servers() const { return static_cast<int>(servers.size()); }
  int count(Pool pool) const;
  // Sum of the capacities of the servers that host workers (ps = false) or PSs (ps = true).
  ResourceVec pool_capacity(bool ps) const;
};

// `worker_servers` servers of `worker_capacity` and `ps_servers` of `ps_capacity`; with `shared`,
// one pool of worker_servers + ps_servers servers of worker_capacity.
OasisCluster make_cluster(int worker_servers, const ResourceVec& worker_capacity, int ps_servers,
                          const ResourceVec& ps_capacity, bool shared, int horizon_slots);

// One method's tasks on one server in one slot.
struct TaskCount {
  int server = 0;
  int workers = 0;
  int ps = 0;
};
// What a job runs in one slot.
struct SlotAllocation {
  int slot = 0;
  std::vector<TaskCount> tasks;
  int workers() const;
  int ps() const;
};

// usage[t][h][r]: allocated resources per slot, server and type.
class SlotLedger {
 public:
  explicit SlotLedger(const OasisCluster& cluster);
  const OasisCluster& cluster() const { return *cluster_; }
  double used(int t, int h, int r) const { return used_[index(t, h) + r]; }
  double free(int t, int h, int r) const { return cluster_->servers[h].capacity[r] - used(t, h, r); }
  // How many more tasks of `demand` fit on server h in slot t (a large number if demand is 0).
  int room(int t, int h, const ResourceVec& demand) const;
  bool fits(int t, int h, const ResourceVec& demand, int n) const;
  // Adds n tasks of `demand`; throws std::logic_error (a bug in a method) if capacity is exceeded
  // or the server does not host that task kind.
  void add(int t, int h, const ResourceVec& demand, int n, bool ps);
  void add(const OasisJob& job, const SlotAllocation& a);
  // Takes back n tasks added before (the baselines' tentative placements).
  void remove(int t, int h, const ResourceVec& demand, int n);
  // Largest used/capacity over every slot, server and resource (<= 1 in every valid run).
  double max_utilization() const;
  // Mean over slots [0, horizon) of the pool's used/capacity of resource r.
  double mean_utilization(bool ps_pool, int r) const;

 private:
  size_t index(int t, int h) const {
    return (static_cast<size_t>(t) * cluster_->servers.size() + static_cast<size_t>(h)) * kNumResources;
  }
  const OasisCluster* cluster_;
  std::vector<double> used_;
};

}  // namespace dmlkit::cluster::oasis
