// bytescheduler: ByteScheduler (Peng et al., SOSP 2019), as in its public code (bytedance/byteps,
// branch bytescheduler, common/bytecore.py) -- spec comm-and-ps.md section 1.3.
// Algorithm: a ready tensor larger than the partition size is cut into partitions; partitions go
// into one priority queue (priority = layer index x max_partition + partition index: front layers
// first, partitions of one tensor in order); the dispatcher sends the head while credit remains
// and refunds credit when a partition finishes. Two credit semantics (--credit-mode):
//   any  (ByteScheduler) dispatch the head whenever credit > 0, so credit may go negative;
//   skip (BytePS scheduled_queue.cc) skip a task larger than the remaining credit and take the
//        next one that fits.
// Preemption happens at partition boundaries only.
// Defaults [C, docs/scheduling.md of the code]: PS partition 1,000,000 parameters, credit
// 4,000,000 parameters; all-reduce partition 8,000,000 and credit 16,000,000 (the docs' advice);
// x 4 bytes (fp32): the original counts parameters, we count bytes.
// Assumptions [A]: every rank follows rank 0's order (ByteScheduler schedules on rank 0 only), so
// one global order is simulated.
#include "comm/schedulers/factories.h"
#include "comm/schedulers/priority_queue.h"
#include "core/error.h"

namespace dmlkit::comm {
namespace {

class ByteScheduler final : public CommScheduler {
 public:
  ByteScheduler(double partition, double credit, CreditMode mode) {
    PriorityCreditQueue::Config c;
    c.partition_bytes = partition;
    c.credit_bytes = credit;
    c.mode = mode;
    queue_.set_config(c);
  }
  void setup(const TrainingWorkload& w, const NetworkConfig&) override { workload_ = &w; }
  void on_ready(int tensor, double) override {
    const auto& t = workload_->tensors[tensor];
    queue_.push_tensor(tensor, t.bytes, t.forward_rank);
  }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double, std::vector<Transfer>& out) override { queue_.poll(out); }

 private:
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
};

}  // namespace

double bytescheduler_default_partition_bytes(Arch arch) { return arch == Arch::ps ? 4e6 : 32e6; }
double bytescheduler_default_credit_bytes(Arch arch) { return arch == Arch::ps ? 16e6 : 64e6; }

std::unique_ptr<CommScheduler> make_bytescheduler(const SchedulerOptions& o, Arch arch) {
  const double partition = o.partition_bytes.value_or(bytescheduler_default_partition_bytes(arch));
  const double credit = o.credit_bytes.value_or(bytescheduler_default_credit_bytes(arch));
  if (!(partition > 0)) throw Error("", 0, "partition", "must be > 0");
  if (!(credit > 0)) throw Error("", 0, "credit", "must be > 0");
  if (o.credit_mode == CreditMode::skip && credit < partition)
    throw Error("", 0, "credit", "with --credit-mode skip the credit must be at least the partition size");
  return std::make_unique<ByteScheduler>(partition, credit, o.credit_mode);
}

}  // namespace dmlkit::comm
