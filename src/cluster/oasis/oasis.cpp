// oasis: OASiS, online admission and worker/PS scheduling by a primal-dual algorithm (Bao, Peng,
// Wu, Li, "Online Job Scheduling in Distributed Machine Learning Clusters", INFOCOM 2018; our
// reconstruction, specs/cluster-schedulers.md 5.2-5.4 with second-pass.md 1).
// On each arrival (jobs of one slot in id order): the dual subroutine (dual_subroutine.h) finds
// the schedule maximising utility minus its priced cost; the job is admitted with that schedule if
// the payoff is > 0, else rejected; its allocation raises the prices of what it uses (price.h).
// Admitted jobs run exactly as scheduled. Assumed [A], each a knob or documented: the L/U forms
// and their scales (price.h), the DP's work unit (max_work_units), the greedy cheapest placement
// per slot, duration = completion - arrival + 1 slots, ties to the earliest completion.
#include <algorithm>

#include "cluster/oasis/dual_subroutine.h"
#include "cluster/oasis/methods.h"
#include "cluster/oasis/price.h"

namespace dmlkit::cluster::oasis {

namespace {

class Oasis final : public OasisMethod {
 public:
  explicit Oasis(const Knobs& k)
      : l_scale_(k.get_double("oasis.l_scale")), u_scale_(k.get_double("oasis.u_scale")) {
    dual_.max_work_units = static_cast<int>(k.get_int("oasis.max_work_units"));
    dual_.prune_horizon = k.get_bool("oasis.prune");
  }

  OasisRun run(const OasisProblem& p) override {
    OasisRun run(*p.cluster);
    const PriceBounds prices = price_bounds(*p.workload, p.cluster->shared_pool(), l_scale_, u_scale_);
    run.log = prices.describe();
    run.theoretical_ratio = prices.competitive_ratio();
    run.jobs.resize(p.jobs->size());
    for (size_t i = 0; i < p.jobs->size(); ++i) {
      const OasisJob& job = (*p.jobs)[i];
      ScheduleChoice c = best_schedule(job, run.ledger, prices, dual_);
      JobOutcome& o = run.jobs[i];
      if (!c.found || !(c.payoff > 0)) continue;  // rejected
      o.admitted = true;
      for (const auto& a : c.slots) {
        run.ledger.add(job, a);
        o.work_done += a.workers();
      }
      o.completion_slot = c.completion_slot;
      o.utility = c.utility;
      o.schedule = std::move(c.slots);
    }
    return run;
  }

 private:
  double l_scale_, u_scale_;
  DualOptions dual_;
};

std::unique_ptr<OasisMethod> make(const OasisMethodOptions&, const Knobs& k) { return std::make_unique<Oasis>(k); }

}  // namespace

OasisMethodEntry oasis_entry() {
  return {"oasis",
          "OASiS (INFOCOM'18): admission and per-slot workers/PSs by a primal-dual algorithm with exponential prices",
          make,
          {knob_double("oasis.l_scale", 1, "factor on every price family's lower bound L [A]").at_least(0, true),
           knob_double("oasis.u_scale", 1, "factor on every price family's upper bound U [A]").at_least(0, true),
           knob_int("oasis.max_work_units", 5000,
                    "DP work dimension cap (exact below it): beyond it workers per slot come in multiples of ceil(D/cap) [A]")
               .range(1, 100000),
           knob_bool("oasis.prune", true, "search completions only while the utility exceeds the cheapest cost")},
          {true}};
}

}  // namespace dmlkit::cluster::oasis
