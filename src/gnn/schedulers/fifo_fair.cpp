// fifo-fair: the baseline scheduling of distributed GNN training (spec A.4 baselines [R]): ready
// sampling tasks take free cores in the order they became ready (FIFO), every flow starts as soon
// as its data is sampled and flows share each link max-min fairly (SimGrid's bandwidth sharing,
// which is how TCP flows of DistDGL's RPCs behave). No knobs.
#include "gnn/schedulers/factories.h"

namespace dmlkit::gnn {
namespace {

class FifoFair final : public Scheduler {
 public:
  std::pair<double, double> task_key(const ReadyTaskView& t) const override {
    return {t.ready_s, static_cast<double>(t.seq)};
  }
  bool prioritise_flows() const override { return false; }
};

}  // namespace

SchedulerEntry fifo_fair_entry() {
  return {"fifo-fair", "tasks in the order they become ready; flows start at once and share links max-min fairly",
          [](const Knobs&) -> std::unique_ptr<Scheduler> { return std::make_unique<FifoFair>(); }};
}

}  // namespace dmlkit::gnn
