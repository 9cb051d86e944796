// fifo: the framework default without a communication scheduler (MXNet's kvstore, Horovod or
// NCCL without fusion; the baseline of ByteScheduler, SOSP'19, and PACE, INFOCOM'20).
// Algorithm: every gradient tensor is synchronised whole, in the order it becomes ready.
// Assumptions [A]: PS -- all pushes start as soon as ready (no window), concurrent transfers share
// the NICs through SimGrid; all-reduce -- collectives run one at a time in ready order (one NCCL
// stream), so a tensor never overtakes an earlier one.
#include "comm/schedulers/priority_queue.h"

namespace dmlkit::comm {
namespace {

class Fifo final : public CommScheduler {
 public:
  explicit Fifo(Arch arch) {
    PriorityCreditQueue::Config c;
    if (arch == Arch::allreduce) c.max_in_flight = 1;
    queue_.set_config(c);
  }
  void setup(const TrainingWorkload& w, const NetworkConfig&) override { workload_ = &w; }
  void on_ready(int tensor, double) override {
    queue_.push_tensor(tensor, workload_->tensors[tensor].bytes, static_cast<double>(seq_++));
  }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double, std::vector<Transfer>& out) override { queue_.poll(out); }

 private:
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
  long seq_ = 0;
};

}  // namespace

SchedulerEntry fifo_entry() {
  return {"fifo", "framework default: whole tensors in ready order, no partitioning",
          [](const Knobs&, const SchedulerContext& ctx) -> std::unique_ptr<CommScheduler> {
            return std::make_unique<Fifo>(ctx.arch);
          }};
}

}  // namespace dmlkit::comm
