// Column generation for the OASiS LP upper bound (see lp_bound.h).
#include "cluster/oasis/lp_bound.h"

#include <ClpSimplex.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlkit::cluster::oasis {

namespace {

struct Column {
  double value = 0;       // f at the schedule's last slot
  std::vector<int> rows;  // capacity rows then the job row
  std::vector<double> elements;
};

struct Relaxed {
  int T = 0;
  int pools = 1;                          // 1 (shared) or 2
  double cap[2][kNumResources] = {};      // pool totals
  // row index of (pool, r, t), -1 if that capacity is 0 (no usage allowed)
  int row(int k, int r, int t) const { return cap[k][r] > 0 ? (k * kNumResources + r) * T + t : -1; }
  int capacity_rows() const { return pools * kNumResources * T; }
};

// Best schedule of `job` at prices pi (size capacity_rows): payoff and, if `out`, the column.
double price_job(const OasisJob& job, int job_row, const Relaxed& m, const std::vector<double>& pi, Column* out) {
  const int a = job.arrival_slot, T = m.T;
  const long D = job.work_worker_slots;
  const int N = job.max_workers;
  const int kw = 0, kp = m.pools == 2 ? 1 : 0;
  // Per-slot cost of one worker-slot; +inf if the job needs a resource a pool does not have.
  std::vector<double> c(static_cast<size_t>(std::max(0, T - a)));
  for (int t = a; t < T; ++t) {
    double v = 0;
    for (int r = 0; r < kNumResources; ++r) {
      if (job.worker_demand[r] > 0) {
        const int row = m.row(kw, r, t);
        if (row < 0) return 0;  // never runnable
        v += job.worker_demand[r] * pi[row];
      }
      if (job.ps_demand[r] > 0) {
        const int row = m.row(kp, r, t);
        if (row < 0) return 0;
        v += job.ps_demand[r] / job.workers_per_ps * pi[row];
      }
    }
    c[t - a] = v;
  }
  const long full = D / N, rem = D % N;
  const long need = full + (rem > 0 ? 1 : 0);
  std::vector<double> sorted;  // costs of slots a..t, ascending
  double best = -std::numeric_limits<double>::infinity();
  int best_t = -1;
  for (int t = a; t < T; ++t) {
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), c[t - a]), c[t - a]);
    if (static_cast<long>(sorted.size()) < need) continue;
    double cost = 0;
    for (long i = 0; i < full; ++i) cost += N * sorted[i];
    if (rem > 0) cost += rem * sorted[full];
    const double payoff = job.utility.value(t - a + 1) - cost;
    if (payoff > best) best = payoff, best_t = t;
  }
  if (best_t < 0) return 0;
  if (out != nullptr) {
    // Rebuild: slots a..best_t by cost (ties: earlier), N workers in the cheapest, rem in the next.
    std::vector<int> idx;
    for (int t = a; t <= best_t; ++t) idx.push_back(t);
    std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return c[x - a] < c[y - a]; });
    std::vector<double> y(static_cast<size_t>(T), 0.0);
    for (long i = 0; i < full; ++i) y[idx[i]] = N;
    if (rem > 0) y[idx[full]] = static_cast<double>(rem);
    int last = a;
    for (int t = a; t <= best_t; ++t)
      if (y[t] > 0) last = t;
    out->value = job.utility.value(last - a + 1);
    out->rows.clear();
    out->elements.clear();
    for (int t = a; t <= best_t; ++t) {
      if (y[t] <= 0) continue;
      // Worker and PS usage may hit the same row on a shared pool: accumulate per row.
      for (int r = 0; r < kNumResources; ++r) {
        const double w = y[t] * job.worker_demand[r];
        const double p = y[t] / job.workers_per_ps * job.ps_demand[r];
        if (w > 0) out->rows.push_back(m.row(kw, r, t)), out->elements.push_back(w);
        if (p > 0) {
          const int row = m.row(kp, r, t);
          if (kp == kw && w > 0) out->elements.back() += p;
          else out->rows.push_back(row), out->elements.push_back(p);
        }
      }
    }
    out->rows.push_back(job_row);
    out->elements.push_back(1.0);
    // payoff with the actual completion
    best += out->value - job.utility.value(best_t - a + 1);
  }
  return best;
}

}  // namespace

LpBound lp_upper_bound(const OasisCluster& cluster, const std::vector<OasisJob>& jobs, const LpBoundOptions& options) {
  LpBound result;
  Relaxed m;
  m.T = cluster.horizon_slots;
  m.pools = cluster.shared_pool() ? 1 : 2;
  for (int k = 0; k < m.pools; ++k) {
    const ResourceVec c = cluster.pool_capacity(k == 1);
    for (int r = 0; r < kNumResources; ++r) m.cap[k][r] = c[r];
  }
  const int R = m.capacity_rows();
  const int n = static_cast<int>(jobs.size());
  if (n == 0 || m.T <= 0) {
    result.converged = true;
    return result;
  }
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.setOptimizationDirection(1);  // minimise -utility
  lp.resize(R + n, 0);
  for (int k = 0; k < m.pools; ++k)
    for (int r = 0; r < kNumResources; ++r)
      for (int t = 0; t < m.T; ++t) {
        const int row = (k * kNumResources + r) * m.T + t;
        lp.setRowBounds(row, -COIN_DBL_MAX, m.cap[k][r]);
      }
  for (int i = 0; i < n; ++i) lp.setRowBounds(R + i, -COIN_DBL_MAX, 1.0);
  std::vector<double> pi(static_cast<size_t>(R), 0.0), mu(static_cast<size_t>(n), 0.0);
  double cap_term = 0;
  result.upper_bound = std::numeric_limits<double>::infinity();
  for (int it = 0; it < std::max(1, options.max_iterations); ++it) {
    result.iterations = it + 1;
    // Dual bound at the current prices, and the columns worth adding.
    double ub = cap_term;
    int added = 0;
    for (int i = 0; i < n; ++i) {
      Column col;
      const double payoff = price_job(jobs[i], R + i, m, pi, &col);
      ub += std::max(0.0, payoff);
      if (payoff - mu[i] > options.tolerance * std::max(1.0, std::abs(payoff)) && !col.rows.empty()) {
        lp.addColumn(static_cast<int>(col.rows.size()), col.rows.data(), col.elements.data(), 0.0, 1.0, -col.value);
        ++added;
      }
    }
    result.upper_bound = std::min(result.upper_bound, ub);
    result.columns += added;
    if (added == 0) {
      result.converged = true;
      break;
    }
    lp.primal();
    result.lp_value = -lp.objectiveValue();
    const double* dual = lp.dualRowSolution();
    cap_term = 0;
    for (int row = 0; row < R; ++row) {
      pi[row] = std::max(0.0, -dual[row]);
      const int k = row / (kNumResources * m.T), r = (row / m.T) % kNumResources;
      cap_term += m.cap[k][r] * pi[row];
    }
    for (int i = 0; i < n; ++i) mu[i] = std::max(0.0, -dual[R + i]);
    if (result.upper_bound - result.lp_value <= options.tolerance * std::max(1.0, result.upper_bound)) {
      result.converged = true;
      break;
    }
  }
  return result;
}

}  // namespace dmlkit::cluster::oasis
