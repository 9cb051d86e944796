// OASiS's dual subroutine (spec 5.4, structure [P], details [A]): the schedule of one job that
// maximises utility minus the priced cost of its resources, at the current prices.
//  1. Per-slot cost curve: for y workers and ceil(y / gamma) PSs in slot t, place each next task
//     on the hosting server where it is cheapest and still fits (prices as before this job), so
//     the placement for y is a prefix of the one for y + 1; cost_t(y) is its priced usage.
//  2. Dynamic program over slots: F_t(v) = min_k F_{t-1}(v - k) + cost_t(k), v = work units done
//     (one unit = u worker-slots, u = 1 unless the job's work exceeds max_work_units units, then
//     workers per slot are multiples of u [A]).
//  3. Completion: the best of f(t - a + 1) - F_t(V) over t; the slots searched end where even the
//     cheapest possible schedule (everything at price L) would cost more than the utility left.
#pragma once
#include <vector>

#include "cluster/oasis/oasis_cluster.h"
#include "cluster/oasis/price.h"

namespace dmlkit::cluster::oasis {

struct DualOptions {
  int max_work_units = 5000;  // cap on the DP's work dimension [A]
  bool prune_horizon = true;  // stop searching where the utility cannot cover the cheapest cost
};

struct ScheduleChoice {
  bool found = false;          // some schedule completes within the horizon
  double payoff = 0;           // utility - cost of the best schedule (if found)
  double utility = 0;
  double cost = 0;
  int completion_slot = -1;
  std::vector<SlotAllocation> slots;  // the best schedule, slots with workers only
  int work_unit = 1;                  // u
};

// Per-slot cost curve of `job` in slot t: cost[k] for y = k * unit workers (k = 0..max_workers /
// unit), +inf where that many do not fit. `order` receives the greedy placement sequence (server of
// each task, workers and PSs interleaved; ps_task[i] tells which) if not null.
struct SlotCurve {
  std::vector<double> cost;
  std::vector<int> server;    // placement sequence
  std::vector<char> ps_task;  // 1 if the i-th placed task is a PS
};
SlotCurve slot_cost_curve(const OasisJob& job, int t, int unit, const SlotLedger& ledger, const PriceBounds& prices);
// The allocation of y workers (and ceil(y / gamma) PSs) in slot t as the prefix of `curve`.
SlotAllocation allocation_from_curve(const OasisJob& job, int t, int workers, const SlotCurve& curve);

ScheduleChoice best_schedule(const OasisJob& job, const SlotLedger& ledger, const PriceBounds& prices,
                             const DualOptions& options = {});

// The priced cost of `a` for `job` at the ledger's current prices.
double schedule_cost(const OasisJob& job, const std::vector<SlotAllocation>& a, const SlotLedger& ledger,
                     const PriceBounds& prices);

}  // namespace dmlkit::cluster::oasis
