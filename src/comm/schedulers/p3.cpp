// p3: Priority-based Parameter Propagation (Jayarajan et al., SysML 2019).
// Algorithm: gradients are cut into fixed-size slices (parameter slicing) and sent by priority,
// the priority being the layer index (layers near the input first, because the next forward pass
// needs them first); a newly ready slice of a front layer overtakes queued slices of later layers.
// Assumptions [A]: slice size 50,000 fp32 parameters = 200,000 bytes (the paper's value is not
// verified; --partition changes it); the sender keeps at most one slice per server in flight for
// PS (window = servers x slice), one slice for all-reduce; layer index = forward order of the
// tensor's consumer.
#include "comm/schedulers/factories.h"
#include "comm/schedulers/priority_queue.h"

namespace dmlkit::comm {
namespace {

class P3 final : public CommScheduler {
 public:
  P3(double slice_bytes, std::optional<double> credit, Arch arch) : slice_(slice_bytes), credit_(credit), arch_(arch) {}
  void setup(const TrainingWorkload& w, const NetworkConfig& net) override {
    workload_ = &w;
    PriorityCreditQueue::Config c;
    c.partition_bytes = slice_;
    c.credit_bytes = credit_ ? *credit_ : (arch_ == Arch::ps ? slice_ * net.servers : slice_);
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
  std::optional<double> credit_;
  Arch arch_;
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
};

}  // namespace

std::unique_ptr<CommScheduler> make_p3(const SchedulerOptions& o, Arch arch) {
  return std::make_unique<P3>(o.partition_bytes.value_or(kP3DefaultSliceBytes), o.credit_bytes, arch);
}

}  // namespace dmlkit::comm
