// p3: Priority-based Parameter Propagation (Jayarajan et al., SysML 2019).
// Algorithm: gradients are cut into fixed-size slices (parameter slicing) and sent by priority,
// the priority being the layer index (layers near the input first, because the next forward pass
// needs them first); a newly ready slice of a front layer overtakes queued slices of later layers.
// Assumptions [A]: slice size 50,000 fp32 parameters = 200,000 bytes (the paper's value is not
// verified; --partition changes it); the sender keeps at most one slice per server in flight for
// PS (window = servers x slice), one slice for all-reduce; layer index = forward order of the
// tensor's consumer.
#include "comm/schedulers/priority_queue.h"

namespace dmlkit::comm {
namespace {

class P3 final : public CommScheduler {
 public:
  P3(double slice_bytes, double credit_bytes) : slice_(slice_bytes), credit_(credit_bytes) {}
  void setup(const TrainingWorkload& w, const NetworkConfig&) override {
    workload_ = &w;
    PriorityCreditQueue::Config c;
    c.partition_bytes = slice_;
    c.credit_bytes = credit_;
    queue_.set_config(c);
  }
  void on_ready(int tensor, double) override {
    const auto& t = workload_->tensors[tensor];
    queue_.push_tensor(tensor, t.bytes, t.forward_rank);
  }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double, std::vector<Transfer>& out) override { queue_.poll(out); }

 private:
  double slice_;
  double credit_;
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
};

std::unique_ptr<CommScheduler> make_p3(const Knobs& knobs, const SchedulerContext& ctx) {
  const double slice = knobs.get_double("p3.partition-mb") * 1e6;
  // One slice per server in flight (PS), one slice (all-reduce), unless a credit is given.
  const double credit = size_knob_bytes(knobs, "p3.credit-mb", 1e6,
                                        [&] { return ctx.arch == Arch::ps ? slice * ctx.net->servers : slice; });
  return std::make_unique<P3>(slice, credit);
}

}  // namespace

SchedulerEntry p3_entry() {
  return {"p3",
          "P3 (SysML'19): parameter slicing + layer priority",
          make_p3,
          {knob_double("p3.partition-mb", 0.2, "slice size (MB)").at_least(0.01),
           knob_double("p3.credit-mb", 0, "bytes in flight (MB)")
               .at_least(0, true)
               .shown("one slice per server (ps), one slice (allreduce)")}};
}

}  // namespace dmlkit::comm
