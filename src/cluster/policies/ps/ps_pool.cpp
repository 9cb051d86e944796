// PS-policy helpers; see ps_pool.h.
#include "cluster/policies/ps/ps_pool.h"

#include <algorithm>
#include <limits>

namespace dmlkit::cluster {

namespace {
constexpr double kSlack = 1e-9;
}

PsPool::PsPool(const ClusterSpec& cluster) {
  cap_.resize(cluster.servers.size() * kResources);
  for (size_t s = 0; s < cluster.servers.size(); ++s) {
    const Server& sv = cluster.servers[s];
    double* c = &cap_[s * kResources];
    c[0] = sv.cpus;
    c[1] = sv.gpus;
    c[2] = sv.mem_gb;
    c[3] = sv.net_gbps;
    for (int r = 0; r < kResources; ++r) total_cap_[r] += c[r];
  }
  used_.assign(cap_.size(), 0.0);
  load_.assign(cap_.size() / kResources, 0.0);
  while (leaves_ < num_servers()) {
    first_leaf_ += leaves_;
    leaves_ *= kFanout;
  }
  min_.assign(static_cast<size_t>(first_leaf_ + leaves_), -1);
  min_load_.assign(min_.size(), std::numeric_limits<double>::infinity());
  rebuild_min();
}

void PsPool::reset() {
  std::fill(used_.begin(), used_.end(), 0.0);
  std::fill(load_.begin(), load_.end(), 0.0);
  rebuild_min();
}

void PsPool::rebuild_min() {
  for (int i = 0; i < leaves_; ++i) {
    min_[first_leaf_ + i] = i < num_servers() ? i : -1;
    min_load_[first_leaf_ + i] = i < num_servers() ? load_[i] : std::numeric_limits<double>::infinity();
  }
  for (int i = first_leaf_ - 1; i >= 0; --i) match(i);
}

// Node i's winner: the least loaded of its children's, ties the leftmost (the children's subtrees
// hold increasing ids; an empty leaf's infinite load loses to every server's). A knockout in three
// rounds (pairs, then pairs of pairs), each keeping the left one unless the right one is less loaded.
inline void PsPool::match(int i) {
  static_assert(kFanout == 8);
  const double* l = &min_load_[kFanout * i + 1];
  int w[4];
  double v[4];
  for (int q = 0; q < 4; ++q) {
    const bool right = l[2 * q + 1] < l[2 * q];
    w[q] = 2 * q + right;
    v[q] = right ? l[2 * q + 1] : l[2 * q];
  }
  for (int q = 0; q < 2; ++q) {
    const bool right = v[2 * q + 1] < v[2 * q];
    w[q] = right ? w[2 * q + 1] : w[2 * q];
    v[q] = right ? v[2 * q + 1] : v[2 * q];
  }
  const bool right = v[1] < v[0];
  min_[i] = min_[kFanout * i + 1 + (right ? w[1] : w[0])];
  min_load_[i] = right ? v[1] : v[0];
}

void PsPool::update_min(int server) {
  int node = first_leaf_ + server;
  min_load_[node] = load_[server];
  while (node > 0) {
    node = (node - 1) / kFanout;
    const int before = min_[node];
    match(node);
    // The same other server as before: its load did not change, so neither does any node above.
    if (min_[node] == before && before != server) return;
  }
}

bool PsPool::fits(int server, const TaskDemand& d, int n) const { return fits(server, d, n, TaskDemand{}, 0); }

bool PsPool::fits(int server, const TaskDemand& a, int na, const TaskDemand& b, int nb) const {
  double da[kResources], db[kResources];
  demand_vector(a, da);
  demand_vector(b, db);
  const double* c = &cap_[server * kResources];
  const double* u = &used_[server * kResources];
  for (int r = 0; r < kResources; ++r)
    if (u[r] + na * da[r] + nb * db[r] > c[r] + kSlack) return false;
  return true;
}

void PsPool::add(int server, const TaskDemand& d, int n) { add(server, d, n, TaskDemand{}, 0); }

void PsPool::add(int server, const TaskDemand& a, int na, const TaskDemand& b, int nb) {
  if (na == 0 && nb == 0) return;  // the loads stay as they are
  double* u = &used_[server * kResources];
  double dv[kResources];
  if (na != 0) {
    demand_vector(a, dv);
    for (int r = 0; r < kResources; ++r) u[r] += na * dv[r];
  }
  if (nb != 0) {
    demand_vector(b, dv);
    for (int r = 0; r < kResources; ++r) u[r] += nb * dv[r];
  }
  load_[server] = compute_load(server);
  update_min(server);
}

void PsPool::take(const PsJobSpec& job, const Placement& p, int sign) {
  for (const Slice& s : p) {
    add(s.server, job.worker, sign * s.workers, job.ps, sign * s.ps);
  }
}

void PsPool::reset_to_running(std::span<const JobView> jobs, std::vector<int>& ps, std::vector<int>& workers) {
  reset();
  ps.assign(jobs.size(), 0);
  workers.assign(jobs.size(), 0);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!jobs[i].running()) continue;
    take(*jobs[i].job->ps, jobs[i].placement);
    placement_counts(jobs[i].placement, ps[i], workers[i]);
  }
}

bool PsPool::can_host(const PsJobSpec& job, const Placement& p) const {
  for (const Slice& s : p)
    if (!fits(s.server, job.worker, s.workers, job.ps, s.ps)) return false;
  return true;
}

double PsPool::compute_load(int server) const {
  double l = 0;
  for (int r = 0; r < kResources; ++r) {
    const double c = cap_[server * kResources + r];
    if (c > 0) l += used_[server * kResources + r] / c;
  }
  return l;
}

bool PsPool::could_hold(int server, const TaskDemand& a, int na, const TaskDemand& b, int nb) const {
  double da[kResources], db[kResources];
  demand_vector(a, da);
  demand_vector(b, db);
  for (int r = 0; r < kResources; ++r)
    if (na * da[r] + nb * db[r] > cap(server, r) + kSlack) return false;
  return true;
}

int PsPool::least_loaded_where(bool fit_now, const TaskDemand& a, int na, const TaskDemand& b, int nb) const {
  const int least = num_servers() > 0 ? min_[0] : -1;
  if (least >= 0 && (fit_now ? fits(least, a, na, b, nb) : could_hold(least, a, na, b, nb))) return least;
  int best = -1;
  double best_load = std::numeric_limits<double>::infinity();
  for (int s = 0; s < num_servers(); ++s) {
    if (!(load_[s] < best_load)) continue;  // cheap test first: most servers are not less loaded
    if (fit_now ? !fits(s, a, na, b, nb) : !could_hold(s, a, na, b, nb)) continue;
    best_load = load_[s];
    best = s;
  }
  return best;
}

int PsPool::least_loaded(const TaskDemand& a, int na, const TaskDemand& b, int nb) const {
  return least_loaded_where(false, a, na, b, nb);
}

int PsPool::least_loaded_fitting(const TaskDemand& a, int na, const TaskDemand& b, int nb) const {
  return least_loaded_where(true, a, na, b, nb);
}

void add_tasks(Placement& p, const PsJobSpec& job, int server, int workers, int ps) {
  for (Slice& s : p) {
    if (s.server != server) continue;
    s.workers += workers;
    s.ps += ps;
    s.gpus = s.workers * job.worker.gpus;
    return;
  }
  Slice s;
  s.server = server;
  s.workers = workers;
  s.ps = ps;
  s.gpus = workers * job.worker.gpus;
  p.push_back(s);
}

void placement_counts(const Placement& p, int& ps, int& workers) {
  ps = workers = 0;
  for (const Slice& s : p) {
    ps += s.ps;
    workers += s.workers;
  }
}

double dominant_share(const PsPool& pool, const PsJobSpec& job, int ps, int workers) {
  double o[kResources], n[kResources];
  demand_vector(job.worker, o);
  demand_vector(job.ps, n);
  double share = 0;
  for (int r = 0; r < kResources; ++r)
    if (pool.total_cap(r) > 0) share = std::max(share, (workers * o[r] + ps * n[r]) / pool.total_cap(r));
  return share;
}

bool next_task_is_ps(const PsJobSpec& job, int ps, int workers) {
  if (ps >= job.user_ps) return false;
  if (workers >= job.user_workers) return true;
  return static_cast<double>(ps) / job.user_ps <= static_cast<double>(workers) / job.user_workers;
}

bool place_least_loaded(PsPool& pool, const PsJobSpec& job, int ps, int workers, Placement& out) {
  out.clear();
  int p = 0, w = 0;
  while (p < ps || w < workers) {
    bool as_ps;
    if (p >= ps)
      as_ps = false;
    else if (w >= workers)
      as_ps = true;
    else
      as_ps = static_cast<double>(p) / ps <= static_cast<double>(w) / workers;
    const TaskDemand& d = as_ps ? job.ps : job.worker;
    const int s = pool.least_loaded_fitting(d, 1);
    if (s < 0) {
      pool.take(job, out, -1);
      out.clear();
      return false;
    }
    pool.add(s, d, 1);
    add_tasks(out, job, s, as_ps ? 0 : 1, as_ps ? 1 : 0);
    (as_ps ? p : w) += 1;
  }
  return true;
}

namespace {

class KindDispatch final : public Policy {
 public:
  KindDispatch(std::unique_ptr<Policy> gpu, std::unique_ptr<Policy> ps) : gpu_(std::move(gpu)), ps_(std::move(ps)) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    last_ = !jobs.empty() && jobs.front().job->kind == WorkKind::ParameterServer ? ps_.get() : gpu_.get();
    last_->schedule(view, jobs, out);
  }
  // The wake-up the policy that made the decision asks for.
  double next_wakeup_s(const ClusterView& view, std::span<const JobView> jobs) const override {
    return last_ != nullptr ? last_->next_wakeup_s(view, jobs) : Policy::next_wakeup_s(view, jobs);
  }
  const char* ps_assignment() const override { return ps_->ps_assignment(); }
  bool charges_restarts() const override { return last_ != nullptr ? last_->charges_restarts() : true; }
  bool handles_ps_jobs() const override { return true; }

 private:
  std::unique_ptr<Policy> gpu_, ps_;
  Policy* last_ = nullptr;  // the one that made the last decision
};

}  // namespace

std::unique_ptr<Policy> with_ps_variant(std::unique_ptr<Policy> gpu, std::unique_ptr<Policy> ps) {
  return std::make_unique<KindDispatch>(std::move(gpu), std::move(ps));
}

}  // namespace dmlkit::cluster
