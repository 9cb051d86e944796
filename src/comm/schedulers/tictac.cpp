// tictac: TicTac (Hashemi, Abdu Jyothi, Campbell; SysML 2019), the timing-independent heuristic
// (TIC). Algorithm: order parameter transfers by when the computation DAG consumes them, computed
// from the DAG structure alone: priority = depth of the consuming op (longest path from an input),
// ties by forward order; transfers are whole tensors and are enforced in that order.
// Assumptions [A]: no partitioning (TicTac reorders, it does not slice); order is enforced by
// keeping one transfer in flight (a started transfer is never preempted); depth is computed on the
// measured module graph (data/model-graphs), not on TensorFlow's op graph.
#include "comm/schedulers/priority_queue.h"

namespace dmlkit::comm {
namespace {

class TicTac final : public CommScheduler {
 public:
  void setup(const TrainingWorkload& w, const NetworkConfig&) override {
    workload_ = &w;
    PriorityCreditQueue::Config c;
    c.max_in_flight = 1;
    queue_.set_config(c);
  }
  void on_ready(int tensor, double) override {
    const auto& t = workload_->tensors[tensor];
    queue_.push_tensor(tensor, t.bytes, t.dag_depth * 1e6 + t.forward_rank);
  }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double, std::vector<Transfer>& out) override { queue_.poll(out); }

 private:
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
};

}  // namespace

SchedulerEntry tictac_entry() {
  return {"tictac", "TicTac (SysML'19): whole tensors in DAG-depth order, enforced",
          [](const Knobs&, const SchedulerContext&) -> std::unique_ptr<CommScheduler> {
            return std::make_unique<TicTac>();
          }};
}

}  // namespace dmlkit::comm
