// horovod: Horovod's tensor fusion (Sergeev & Del Balso 2018; docs/tensor-fusion.rst).
// Algorithm: a background loop wakes every cycle time; it takes the tensors that became ready
// since, in ready order, and packs them into fusion buffers of at most the fusion threshold (a
// tensor larger than the threshold goes alone; threshold 0 disables fusion); each buffer is one
// ring all-reduce, run one after another.
// Defaults [doc]: 64 MiB threshold and 5 ms cycle, Horovod's defaults before v0.21 (PR #2468
// changed them to 128 MiB and 1 ms), i.e. the Horovod that ByteScheduler and PACE compared with.
// Assumptions [A]: cycle ticks at multiples of the cycle time from t=0; every rank is ready at the
// same time (homogeneous workers), so negotiation costs nothing beyond op_overhead; all-reduce only.
#include <fmt/format.h>

#include <cmath>

#include "comm/scheduler.h"
#include "comm/schedulers/priority_queue.h"
#include "core/error.h"

namespace dmlkit::comm {
namespace {

class Horovod final : public CommScheduler {
 public:
  Horovod(double fusion_bytes, double cycle_s) : fusion_(fusion_bytes), cycle_(cycle_s) {
    PriorityCreditQueue::Config c;
    c.max_in_flight = 1;
    queue_.set_config(c);
  }
  void setup(const TrainingWorkload& w, const NetworkConfig&) override { workload_ = &w; }
  void on_ready(int tensor, double now_s) override {
    ready_.push_back(tensor);
    if (!std::isfinite(tick_s_)) tick_s_ = (std::floor(now_s / cycle_ + 1e-9) + 1) * cycle_;
  }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double now_s, std::vector<Transfer>& out) override {
    if (!ready_.empty() && now_s >= tick_s_ - 1e-12) {
      std::vector<Chunk> group;
      double bytes = 0;
      auto flush = [&] {
        if (group.empty()) return;
        queue_.push(group, bytes, static_cast<double>(seq_), group.front().tensor);
        ++seq_;
        group.clear();
        bytes = 0;
      };
      for (int t : ready_) {
        const double b = workload_->tensors[t].bytes;
        if (!group.empty() && bytes + b > fusion_) flush();
        group.push_back({t, b});
        bytes += b;
      }
      flush();
      ready_.clear();
      tick_s_ = std::numeric_limits<double>::infinity();
    }
    queue_.poll(out);
  }
  double next_wakeup_s() const override { return tick_s_; }

 private:
  double fusion_, cycle_;
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
  std::vector<int> ready_;
  double tick_s_ = std::numeric_limits<double>::infinity();
  long seq_ = 0;
};

std::unique_ptr<CommScheduler> make_horovod(const Knobs& knobs, const SchedulerContext&) {
  const double fusion = knobs.get_double("horovod.fusion-mb") * 1024 * 1024;  // MiB
  const double cycle = knobs.get_double("horovod.cycle-ms") * 1e-3;
  return std::make_unique<Horovod>(fusion, cycle);
}

// comm tune's box [A]: threshold 1-256 MiB, cycle 0.5-20 ms.
KnobValues tune_point(KnobValues knobs, const std::vector<double>& x) {
  knobs["horovod.fusion-mb"] = fmt::format("{}", x[0]);
  knobs["horovod.cycle-ms"] = fmt::format("{}", x[1]);
  return knobs;
}

}  // namespace

SchedulerEntry horovod_entry() {
  return {"horovod",
          "Horovod tensor fusion: threshold + cycle time",
          make_horovod,
          {knob_double("horovod.fusion-mb", 64, "fusion threshold (MiB)").at_least(0),
           knob_double("horovod.cycle-ms", 5, "cycle time (ms)").at_least(0, true)},
          {.ps = false, .tune = {{{"fusion_mib", 1, 256, true}, {"cycle_ms", 0.5, 20, true}}, tune_point}}};
}

}  // namespace dmlkit::comm
