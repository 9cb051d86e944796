// OASiS-model servers and the slot ledger (see oasis_cluster.h).
#include "cluster/oasis/oasis_cluster.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dmlkit::cluster::oasis {

namespace {
constexpr double kEps = 1e-9;
}

int OasisCluster::count(Pool pool) const {
  int n = 0;
  for (const auto& s : servers) n += s.pool == pool ? 1 : 0;
  return n;
}

ResourceVec OasisCluster::pool_capacity(bool ps) const {
  ResourceVec c{};
  for (int h = 0; h < num_servers(); ++h)
    if (hosts(h, ps))
      for (int r = 0; r < kNumResources; ++r) c[r] += servers[h].capacity[r];
  return c;
}

OasisCluster make_cluster(int worker_servers, const ResourceVec& worker_capacity, int ps_servers,
                          const ResourceVec& ps_capacity, bool shared, int horizon_slots) {
  OasisCluster c;
  c.horizon_slots = horizon_slots;
  if (shared) {
    for (int i = 0; i < worker_servers + ps_servers; ++i) c.servers.push_back({Pool::Shared, worker_capacity});
  } else {
    for (int i = 0; i < worker_servers; ++i) c.servers.push_back({Pool::Worker, worker_capacity});
    for (int i = 0; i < ps_servers; ++i) c.servers.push_back({Pool::Ps, ps_capacity});
  }
  return c;
}

int SlotAllocation::workers() const {
  int n = 0;
  for (const auto& t : tasks) n += t.workers;
  return n;
}
int SlotAllocation::ps() const {
  int n = 0;
  for (const auto& t : tasks) n += t.ps;
  return n;
}

SlotLedger::SlotLedger(const OasisCluster& cluster)
    : cluster_(&cluster),
      used_(static_cast<size_t>(std::max(0, cluster.horizon_slots)) * cluster.servers.size() * kNumResources, 0.0) {}

int SlotLedger::room(int t, int h, const ResourceVec& demand) const {
  int best = std::numeric_limits<int>::max() / 2;
  for (int r = 0; r < kNumResources; ++r) {
    if (demand[r] <= 0) continue;
    const double f = free(t, h, r);
    best = std::min(best, static_cast<int>(std::floor((f + kEps) / demand[r])));
  }
  return std::max(0, best);
}

bool SlotLedger::fits(int t, int h, const ResourceVec& demand, int n) const { return room(t, h, demand) >= n; }

void SlotLedger::add(int t, int h, const ResourceVec& demand, int n, bool ps) {
  if (n == 0) return;
  if (t < 0 || t >= cluster_->horizon_slots || h < 0 || h >= cluster_->num_servers() || n < 0)
    throw std::logic_error("oasis ledger: slot/server out of range");
  if (!cluster_->hosts(h, ps)) throw std::logic_error("oasis ledger: task on a server of the other pool");
  for (int r = 0; r < kNumResources; ++r) {
    double& u = used_[index(t, h) + r];
    u += demand[r] * n;
    if (u > cluster_->servers[h].capacity[r] + 1e-6)
      throw std::logic_error("oasis ledger: capacity exceeded on server " + std::to_string(h) + " slot " +
                             std::to_string(t) + " resource " + resource_name(r));
  }
}

void SlotLedger::add(const OasisJob& job, const SlotAllocation& a) {
  for (const auto& tc : a.tasks) {
    add(a.slot, tc.server, job.worker_demand, tc.workers, false);
    add(a.slot, tc.server, job.ps_demand, tc.ps, true);
  }
}

void SlotLedger::remove(int t, int h, const ResourceVec& demand, int n) {
  for (int r = 0; r < kNumResources; ++r) {
    double& u = used_[index(t, h) + r];
    u = std::max(0.0, u - demand[r] * n);
  }
}

double SlotLedger::max_utilization() const {
  double m = 0;
  for (int t = 0; t < cluster_->horizon_slots; ++t)
    for (int h = 0; h < cluster_->num_servers(); ++h)
      for (int r = 0; r < kNumResources; ++r) {
        const double c = cluster_->servers[h].capacity[r];
        if (c > 0) m = std::max(m, used(t, h, r) / c);
      }
  return m;
}

double SlotLedger::mean_utilization(bool ps_pool, int r) const {
  const double cap = cluster_->pool_capacity(ps_pool)[r];
  if (cap <= 0 || cluster_->horizon_slots <= 0) return 0;
  double sum = 0;
  for (int t = 0; t < cluster_->horizon_slots; ++t)
    for (int h = 0; h < cluster_->num_servers(); ++h)
      if (cluster_->hosts(h, ps_pool)) sum += used(t, h, r);
  return sum / (cap * cluster_->horizon_slots);
}

}  // namespace dmlkit::cluster::oasis
