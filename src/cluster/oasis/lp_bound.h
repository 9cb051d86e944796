// An upper bound on the offline optimum of the OASiS model, for the empirical competitive ratio
// (total utility of a method / this bound). It is the LP relaxation of the schedule-based primal
// (spec 5.2) of a relaxed model, solved by column generation with COIN-OR CLP:
//   max sum_i sum_l f_il x_il  s.t.  sum_il usage_il(pool, r, t) x_il <= C(pool, r)  for all pool, r, t,
//                                    sum_l x_il <= 1,  x >= 0,
// where the capacities are the pools' totals (a task need not fit on one server) and a schedule's
// PS usage is y_t / gamma_i PSs (not ceil(y_t / gamma_i)). Every schedule any method runs is feasible
// here, so the LP optimum bounds every method's total utility from above. The pricing step is the
// dual subroutine of this relaxed model, exact: with linear per-slot costs, the cheapest way to do D
// worker-slots by slot t fills the cheapest slots with N_i workers. At each iteration the duals give
// a feasible dual solution, sum_i max(0, best payoff_i) + sum C * price, whose value is an upper
// bound (weak duality) whether or not column generation has converged; the smallest is reported.
#pragma once
#include <vector>

#include "cluster/oasis/oasis_cluster.h"

namespace dmlkit::cluster::oasis {

struct LpBoundOptions {
  int max_iterations = 100;
  double tolerance = 1e-6;  // relative gap at which column generation stops
};

struct LpBound {
  double upper_bound = 0;  // the smallest dual bound found: >= the offline optimum
  double lp_value = 0;     // the restricted master's value at the end (<= the LP optimum)
  int iterations = 0;
  int columns = 0;
  bool converged = false;  // no column with a positive reduced cost was left
};

LpBound lp_upper_bound(const OasisCluster& cluster, const std::vector<OasisJob>& jobs, const LpBoundOptions& options = {});

}  // namespace dmlkit::cluster::oasis
