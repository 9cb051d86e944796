// rrh on the OASiS model: the Risk/Reward Heuristic (Irwin, Grit, Chase, "Balancing Risk and Reward
// in a Market-based Task Service", HPDC 2004; spec 6.6 [P, details unverified]), a baseline of
// OASiS's evaluation. A job's value is its utility f_i. Each slot, every unfinished job gets the
// priority (alpha * PV_i - (1 - alpha) * cost_i) / runtime_i, where runtime_i = slots to finish at
// its request, PV_i = the utility if it runs from now on at its request, and cost_i = the utility
// the other waiting jobs lose if they are delayed by runtime_i; requests are then granted whole in
// priority order, skipping those that do not fit [A]. Every job is admitted [A].
#include <algorithm>
#include <cmath>
#include <numeric>

#include "cluster/oasis/methods.h"
#include "cluster/oasis/slot_engine.h"

namespace dmlkit::cluster::oasis {

namespace {

class Rrh final : public SlotScheduler, public OasisMethod {
 public:
  explicit Rrh(const Knobs& k) : alpha_(k.get_double("rrh.alpha")) {}
  OasisRun run(const OasisProblem& p) override { return run_slotted(p, *this); }
  void allocate(int t, std::span<const ActiveJob> active, bool, bool, SlotLedger& ledger,
                std::span<SlotAllocation> alloc) override {
    const size_t n = active.size();
    std::vector<double> runtime(n), pv(n), prio(n);
    for (size_t i = 0; i < n; ++i) {
      const int w = std::max(1, active[i].request());
      runtime[i] = std::ceil(static_cast<double>(active[i].remaining()) / w);
      pv[i] = active[i].job->utility.value(t - active[i].job->arrival_slot + runtime[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      double cost = 0;
      for (size_t j = 0; j < n; ++j)
        if (j != i) cost += pv[j] - active[j].job->utility.value(t - active[j].job->arrival_slot + runtime[j] + runtime[i]);
      prio[i] = (alpha_ * pv[i] - (1 - alpha_) * cost) / runtime[i];
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return prio[a] > prio[b]; });
    for (size_t i : order) place_gang(*active[i].job, t, active[i].request(), ledger, alloc[i]);
  }

 private:
  double alpha_;
};

std::unique_ptr<OasisMethod> make(const OasisMethodOptions&, const Knobs& k) { return std::make_unique<Rrh>(k); }

}  // namespace

OasisMethodEntry rrh_entry() {
  return {"rrh",
          "risk/reward heuristic (HPDC'04): value-based priority, whole requests in priority order",
          make,
          {knob_double("rrh.alpha", 0.3, "weight of the job's own reward against the risk to others [A]").range(0, 1)}};
}

}  // namespace dmlkit::cluster::oasis
