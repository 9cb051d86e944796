// OASiS's dual subroutine (see dual_subroutine.h).
#include "cluster/oasis/dual_subroutine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace dmlkit::cluster::oasis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double task_price(const ResourceVec& demand, const SlotLedger& ledger, const PriceBounds& prices, int t, int h) {
  double p = 0;
  for (int r = 0; r < kNumResources; ++r)
    if (demand[r] > 0) p += demand[r] * unit_price(prices, ledger, t, h, r);
  return p;
}

}  // namespace

SlotCurve slot_cost_curve(const OasisJob& job, int t, int unit, const SlotLedger& ledger, const PriceBounds& prices) {
  const OasisCluster& c = ledger.cluster();
  const int H = c.num_servers();
  const int kmax = job.max_workers / unit;
  SlotCurve curve;
  curve.cost.assign(static_cast<size_t>(kmax) + 1, kInf);
  curve.cost[0] = 0;
  // Servers by price for each task kind (ties: lower index). Prices do not change while this job
  // is placed, and a server's room only shrinks, so one pointer per list finds the cheapest server
  // with room.
  std::vector<double> pw(H, kInf), pp(H, kInf);
  std::vector<int> ow, op;
  for (int h = 0; h < H; ++h) {
    if (c.hosts(h, false)) pw[h] = task_price(job.worker_demand, ledger, prices, t, h), ow.push_back(h);
    if (c.hosts(h, true)) pp[h] = task_price(job.ps_demand, ledger, prices, t, h), op.push_back(h);
  }
  auto by = [](const std::vector<double>& p) { return [&p](int a, int b) { return p[a] < p[b] || (p[a] == p[b] && a < b); }; };
  std::sort(ow.begin(), ow.end(), by(pw));
  std::sort(op.begin(), op.end(), by(pp));
  // Tentative additions of this job per server and resource.
  std::vector<double> add(static_cast<size_t>(H) * kNumResources, 0.0);
  auto fits = [&](int h, const ResourceVec& d) {
    for (int r = 0; r < kNumResources; ++r)
      if (d[r] > 0 && add[h * kNumResources + r] + d[r] > ledger.free(t, h, r) + 1e-9) return false;
    return true;
  };
  auto take = [&](int h, const ResourceVec& d) {
    for (int r = 0; r < kNumResources; ++r) add[h * kNumResources + r] += d[r];
  };
  size_t iw = 0, ip = 0;
  double cost = 0;
  int ps = 0;
  for (int y = 1; y <= kmax * unit; ++y) {
    while (iw < ow.size() && !fits(ow[iw], job.worker_demand)) ++iw;
    if (iw == ow.size()) break;
    take(ow[iw], job.worker_demand);
    cost += pw[ow[iw]];
    curve.server.push_back(ow[iw]);
    curve.ps_task.push_back(0);
    bool ok = true;
    while (ps < job.ps_for(y)) {
      while (ip < op.size() && !fits(op[ip], job.ps_demand)) ++ip;
      if (ip == op.size()) {
        ok = false;
        break;
      }
      take(op[ip], job.ps_demand);
      cost += pp[op[ip]];
      curve.server.push_back(op[ip]);
      curve.ps_task.push_back(1);
      ++ps;
    }
    if (!ok) break;
    if (y % unit == 0) curve.cost[y / unit] = cost;
  }
  return curve;
}

SlotAllocation allocation_from_curve(const OasisJob& job, int t, int workers, const SlotCurve& curve) {
  SlotAllocation a;
  a.slot = t;
  int w = 0, p = 0;
  const int need_ps = job.ps_for(workers);
  std::vector<std::pair<int, std::pair<int, int>>> per;  // server -> (workers, ps)
  auto slot_of = [&](int h) -> std::pair<int, int>& {
    for (auto& e : per)
      if (e.first == h) return e.second;
    per.push_back({h, {0, 0}});
    return per.back().second;
  };
  for (size_t i = 0; i < curve.server.size() && (w < workers || p < need_ps); ++i) {
    if (curve.ps_task[i]) {
      if (p < need_ps) ++slot_of(curve.server[i]).second, ++p;
    } else if (w < workers) {
      ++slot_of(curve.server[i]).first, ++w;
    }
  }
  std::sort(per.begin(), per.end());
  for (const auto& [h, wp] : per) a.tasks.push_back({h, wp.first, wp.second});
  return a;
}

double schedule_cost(const OasisJob& job, const std::vector<SlotAllocation>& slots, const SlotLedger& ledger,
                     const PriceBounds& prices) {
  double cost = 0;
  for (const auto& a : slots)
    for (const auto& tc : a.tasks)
      cost += tc.workers * task_price(job.worker_demand, ledger, prices, a.slot, tc.server) +
              tc.ps * task_price(job.ps_demand, ledger, prices, a.slot, tc.server);
  return cost;
}

ScheduleChoice best_schedule(const OasisJob& job, const SlotLedger& ledger, const PriceBounds& prices,
                             const DualOptions& options) {
  ScheduleChoice best;
  const OasisCluster& c = ledger.cluster();
  const long D = job.work_worker_slots;
  const int cap = std::max(1, options.max_work_units);
  int unit = static_cast<int>(std::min<long>(job.max_workers, std::max<long>(1, (D + cap - 1) / cap)));
  best.work_unit = unit;
  const int V = static_cast<int>((D + unit - 1) / unit);
  const int a = job.arrival_slot;
  if (a >= c.horizon_slots || job.max_workers / unit <= 0) return best;
  // Last slot worth searching: the utility must exceed the cost of the cheapest conceivable
  // schedule (every task at its family's L on an empty cluster).
  int last = c.horizon_slots - 1;
  if (options.prune_horizon) {
    double lb_w = 0, lb_p = 0;
    for (int r = 0; r < kNumResources; ++r) {
      const PriceFamily& fw = prices.of(false, r);
      const PriceFamily& fp = prices.of(!c.shared_pool(), r);
      if (fw.priced) lb_w += job.worker_demand[r] * fw.lower;
      if (fp.priced) lb_p += job.ps_demand[r] * fp.lower;
    }
    const double lb = static_cast<double>(D) * lb_w + std::ceil(static_cast<double>(D) / job.workers_per_ps) * lb_p;
    while (last >= a && job.utility.value(last - a + 1) <= lb) --last;
    if (last < a) return best;
  }
  const int W = last - a + 1;
  std::vector<SlotCurve> curves(static_cast<size_t>(W));
  std::vector<double> F(static_cast<size_t>(V) + 1, kInf), G(F.size());
  F[0] = 0;
  std::vector<int> choice(static_cast<size_t>(W) * (V + 1), 0);
  double best_payoff = -kInf;
  int best_t = -1;
  for (int i = 0; i < W; ++i) {
    const int t = a + i;
    curves[i] = slot_cost_curve(job, t, unit, ledger, prices);
    const std::vector<double>& cost = curves[i].cost;
    const int kk = static_cast<int>(cost.size()) - 1;
    int* ch = &choice[static_cast<size_t>(i) * (V + 1)];
    for (int v = 0; v <= V; ++v) {
      double m = F[v];
      int arg = 0;
      for (int k = 1; k <= kk; ++k) {
        if (cost[k] == kInf) break;
        const double cand = F[std::max(0, v - k)] + cost[k];
        if (cand < m) m = cand, arg = k;
        if (v - k <= 0) break;  // more workers cannot reach a smaller predecessor
      }
      G[v] = m;
      ch[v] = arg;
    }
    F.swap(G);
    if (F[V] < kInf) {
      const double payoff = job.utility.value(t - a + 1) - F[V];
      if (payoff > best_payoff) best_payoff = payoff, best_t = i;
    }
  }
  if (best_t < 0) return best;
  // Back-track from (best_t, V).
  best.found = true;
  std::vector<int> k_of(static_cast<size_t>(best_t) + 1, 0);
  int v = V;
  for (int i = best_t; i >= 0; --i) {
    const int k = choice[static_cast<size_t>(i) * (V + 1) + v];
    k_of[i] = k;
    v = std::max(0, v - k);
  }
  int completion = -1;
  for (int i = 0; i <= best_t; ++i) {
    if (k_of[i] == 0) continue;
    best.slots.push_back(allocation_from_curve(job, a + i, k_of[i] * unit, curves[i]));
    best.cost += curves[i].cost[k_of[i]];
    completion = a + i;
  }
  best.completion_slot = completion;
  best.utility = job.utility.value(completion - a + 1);
  best.payoff = best.utility - best.cost;
  return best;
}

}  // namespace dmlkit::cluster::oasis
