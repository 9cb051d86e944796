// drf on the OASiS model: Dominant Resource Fairness (Ghodsi et al., NSDI 2011; spec 6.1), a
// baseline of OASiS's evaluation (YARN/Mesos). Every job is admitted with the user's fixed request
// (spec 5.6). Each slot, progressive filling: the job with the smallest dominant share (over the
// whole cluster's capacity, workers and PSs together) that is below its request gets one more
// worker (and a PS when it needs one), until no job's next worker fits [A: task by task, partial
// requests run -- asynchronous training makes them useful].
#include <limits>

#include "cluster/oasis/methods.h"
#include "cluster/oasis/slot_engine.h"

namespace dmlkit::cluster::oasis {

namespace {

class Drf final : public SlotScheduler, public OasisMethod {
 public:
  OasisRun run(const OasisProblem& p) override {
    cap_ = total_capacity(*p.cluster);
    return run_slotted(p, *this);
  }
  void allocate(int t, std::span<const ActiveJob> active, bool, bool, SlotLedger& ledger,
                std::span<SlotAllocation> alloc) override {
    progressive_fill(t, active, [&](size_t i) { return active[i].request(); }, cap_, ledger, alloc);
  }

 private:
  ResourceVec cap_{};
};

std::unique_ptr<OasisMethod> make(const OasisMethodOptions&, const Knobs&) { return std::make_unique<Drf>(); }

}  // namespace

OasisMethodEntry drf_entry() {
  return {"drf", "dominant resource fairness, progressive filling up to the user's fixed request", make, {}};
}

}  // namespace dmlkit::cluster::oasis
