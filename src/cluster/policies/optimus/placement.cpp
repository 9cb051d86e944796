// Optimus' placement; see placement.h.
#include "cluster/policies/optimus/placement.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace dmlkit::cluster {

namespace {

// Whether a server could host one task of `d` when empty.
bool could_host(const PsPool& pool, int s, const TaskDemand& d) {
  double v[kResources];
  demand_vector(d, v);
  for (int r = 0; r < kResources; ++r)
    if (v[r] > pool.cap(s, r) + 1e-9) return false;
  return true;
}

}  // namespace

bool OptimusPlacer::try_round_robin(PsPool& pool, const PsJobSpec& job, int p, int w, Placement& out) {
  ps_hosts_.clear();
  wk_hosts_.clear();
  for (int s : cand_) {
    if (could_host(pool, s, job.ps)) ps_hosts_.push_back(s);
    if (could_host(pool, s, job.worker)) wk_hosts_.push_back(s);
  }
  if (ps_hosts_.empty() || wk_hosts_.empty()) return false;
  out.clear();
  for (int i = 0; i < p; ++i) add_tasks(out, job, ps_hosts_[i % ps_hosts_.size()], 0, 1);
  for (int i = 0; i < w; ++i) add_tasks(out, job, wk_hosts_[i % wk_hosts_.size()], 1, 0);
  if (!pool.can_host(job, out)) {
    out.clear();
    return false;
  }
  pool.take(job, out);
  return true;
}

bool OptimusPlacer::partial(PsPool& pool, const PsJobSpec& job, int& p, int& w, const std::vector<int>& avoid,
                            Placement& out) {
  out.clear();
  int placed_p = 0, placed_w = 0;
  bool want_ps = true;
  auto find = [&](const TaskDemand& d) {
    for (int s = 0; s < pool.num_servers(); ++s)
      if (pool.fits(s, d, 1) && std::find(avoid.begin(), avoid.end(), s) == avoid.end()) return s;
    return -1;
  };
  while (placed_p < p || placed_w < w) {
    const bool as_ps = placed_p >= p ? false : placed_w >= w ? true : want_ps;
    const TaskDemand& d = as_ps ? job.ps : job.worker;
    const int s = find(d);
    if (s < 0) break;
    pool.add(s, d, 1);
    add_tasks(out, job, s, as_ps ? 0 : 1, as_ps ? 1 : 0);
    (as_ps ? placed_p : placed_w) += 1;
    want_ps = !as_ps;
  }
  if (placed_p >= 1 && placed_w >= 1) {
    p = placed_p;
    w = placed_w;
    return true;
  }
  pool.take(job, out, -1);
  out.clear();
  p = w = 0;
  return false;
}

void OptimusPlacer::place(PsPool& pool, std::span<const PsJobSpec* const> jobs, std::vector<int>& ps,
                          std::vector<int>& workers, const std::vector<std::vector<int>>& avoid,
                          std::vector<Placement>& out) {
  const int n = static_cast<int>(jobs.size());
  out.assign(n, Placement{});
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return ps[a] + workers[a] < ps[b] + workers[b]; });
  // Min-heap on (used CPU, id) as a binary heap with std::greater.
  heap_.clear();
  for (int s = 0; s < pool.num_servers(); ++s) heap_.emplace_back(pool.used(s, 0), s);
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
  double free_total[kResources];
  for (int r = 0; r < kResources; ++r) {
    free_total[r] = 0;
    for (int s = 0; s < pool.num_servers(); ++s) free_total[r] += pool.free(s, r);
  }
  std::vector<std::pair<double, int>> skipped;
  for (int i : order_) {
    if (ps[i] < 1 || workers[i] < 1) {
      ps[i] = workers[i] = 0;
      continue;
    }
    const PsJobSpec& job = *jobs[i];
    const std::vector<int>& av = avoid[i];
    // A job larger than everything free cannot fit on any k servers: go to partial placement.
    double dp[kResources], dw[kResources];
    demand_vector(job.ps, dp);
    demand_vector(job.worker, dw);
    bool may_fit = true;
    for (int r = 0; r < kResources; ++r) {
      if (ps[i] * dp[r] + workers[i] * dw[r] > free_total[r] + 1e-9) may_fit = false;
    }
    bool placed = false;
    cand_.clear();
    skipped.clear();
    if (may_fit) {
      // Servers that could host a task of this job at all; more than p + w of them cannot help.
      int useful = 0;
      const int max_useful = ps[i] + workers[i];
      while (!heap_.empty() && useful < max_useful) {
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
        const auto top = heap_.back();
        heap_.pop_back();
        if (std::find(av.begin(), av.end(), top.second) != av.end()) {
          skipped.push_back(top);
          continue;
        }
        cand_.push_back(top.second);
        if (could_host(pool, top.second, job.ps) || could_host(pool, top.second, job.worker)) ++useful;
        if (try_round_robin(pool, job, ps[i], workers[i], out[i])) {
          placed = true;
          break;
        }
      }
    }
    if (placed) {
      // The candidates go back with their new usage.
      for (int s : cand_) {
        heap_.emplace_back(pool.used(s, 0), s);
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      }
      for (const auto& e : skipped) {
        heap_.push_back(e);
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      }
    } else {
      // Partial placement may use any server: rebuild the heap from the pool afterwards.
      partial(pool, job, ps[i], workers[i], av, out[i]);
      heap_.clear();
      for (int s = 0; s < pool.num_servers(); ++s) heap_.emplace_back(pool.used(s, 0), s);
      std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
    }
    if (!out[i].empty())
      for (int r = 0; r < kResources; ++r) free_total[r] -= ps[i] * dp[r] + workers[i] * dw[r];
  }
}

}  // namespace dmlkit::cluster
