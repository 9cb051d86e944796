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
#include <fmt/format.h>

#include "comm/scheduler.h"
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

std::unique_ptr<CommScheduler> make_bytescheduler(const Knobs& knobs, const SchedulerContext& ctx) {
  const bool ps = ctx.arch == Arch::ps;
  const double partition = knobs.get_double("bytescheduler.partition-mb", ps ? 4 : 32) * 1e6;
  const double credit = knobs.get_double("bytescheduler.credit-mb", ps ? 16 : 64) * 1e6;
  const CreditMode mode = knobs.get_string("bytescheduler.credit-mode") == "skip" ? CreditMode::skip : CreditMode::any;
  if (mode == CreditMode::skip && credit < partition)
    throw Error("", 0, "credit", "with --credit-mode skip the credit must be at least the partition size");
  return std::make_unique<ByteScheduler>(partition, credit, mode);
}

// comm tune's box [A]: ByteScheduler's tuner searches credit in 1-16 M parameters (PS) or 4-64 M
// (all-reduce) and partition in 2-32 M parameters (spec 1.6); we search one box covering both,
// in MB: partition 1-128 MB, credit 4-256 MB. With credit-mode skip a point's credit is raised
// to its partition (skip needs credit >= partition).
KnobValues tune_point(KnobValues knobs, const std::vector<double>& x) {
  const auto mode = knobs.find("bytescheduler.credit-mode");
  const bool skip = mode != knobs.end() && mode->second == "skip";
  knobs["bytescheduler.partition-mb"] = fmt::format("{}", x[0]);
  knobs["bytescheduler.credit-mb"] = fmt::format("{}", skip && x[1] < x[0] ? x[0] : x[1]);
  return knobs;
}

}  // namespace

SchedulerEntry bytescheduler_entry() {
  return {"bytescheduler",
          "ByteScheduler (SOSP'19): partitions, credit window, priority",
          make_bytescheduler,
          {knob_double("bytescheduler.partition-mb", 0, "partition size (MB)")
               .at_least(0.01)
               .shown("4 (ps), 32 (allreduce)"),
           knob_double("bytescheduler.credit-mb", 0, "bytes in flight (MB)")
               .at_least(0, true)
               .shown("16 (ps), 64 (allreduce)"),
           knob_enum("bytescheduler.credit-mode", "any", {"any", "skip"},
                     "any: send while credit > 0; skip: BytePS, skip tasks larger than the credit")},
          {.tune = {{{"partition_mb", 1, 128, true}, {"credit_mb", 4, 256, true}}, tune_point}}};
}

}  // namespace dmlkit::comm
