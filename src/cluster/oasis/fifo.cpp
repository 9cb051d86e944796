// fifo on the OASiS model: first in, first out, the baseline of OASiS's evaluation (spec 5.5, 6.3;
// Hadoop/Spark's default). Every job is admitted and runs at the user's fixed request (ceil(N_i/2)
// workers and the PSs they need, spec 5.6) [P/A]. Each slot, in arrival order, a job gets its whole
// request or nothing; the first job that does not fit blocks those behind it unless fifo.backfill
// [A]. A job near its end asks for no more workers than its remaining work.
#include "cluster/oasis/methods.h"
#include "cluster/oasis/slot_engine.h"

namespace dmlkit::cluster::oasis {

namespace {

class Fifo final : public SlotScheduler, public OasisMethod {
 public:
  explicit Fifo(const Knobs& k) : backfill_(k.get_bool("fifo.backfill")) {}
  OasisRun run(const OasisProblem& p) override { return run_slotted(p, *this); }
  void allocate(int t, std::span<const ActiveJob> active, bool, bool, SlotLedger& ledger,
                std::span<SlotAllocation> alloc) override {
    for (size_t i = 0; i < active.size(); ++i)
      if (!place_gang(*active[i].job, t, active[i].request(), ledger, alloc[i]) && !backfill_) break;
  }

 private:
  bool backfill_;
};

std::unique_ptr<OasisMethod> make(const OasisMethodOptions&, const Knobs& k) { return std::make_unique<Fifo>(k); }

}  // namespace

OasisMethodEntry fifo_entry() {
  return {"fifo",
          "first come first served at the user's fixed (workers, PSs); head-of-line blocking",
          make,
          {knob_bool("fifo.backfill", false, "let later jobs start when the head job does not fit [A]")}};
}

}  // namespace dmlkit::cluster::oasis
