// horovod: Horovod's tensor fusion (Sergeev & Del Balso 2018; docs/tensor-fusion.rst).
// Algorithm: a background loop wakes every cycle time; it takes the tensors that became ready
// since, in ready order, and packs them into fusion buffers of at most the fusion threshold (a
// tensor larger than the threshold goes alone; threshold 0 disables fusion); each buffer is one
// ring all-reduce, run one after another.
// Defaults [doc]: 64 MiB threshold and 5 ms cycle, Horovod's defaults before v0.21 (PR #2468
// changed them to 128 MiB and 1 ms), i.e. the Horovod that ByteScheduler and PACE compared with.
// Assumptions [A]: cycle ticks at multiples of the cycle time from t=0; every rank is ready at the
// same time (homogeneous workers), so negotiation costs nothing beyond op_overhead; all-reduce only.
#include <cmath>

#include "comm/schedulers/factories.h"
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

}  // namespace

std::unique_ptr<CommScheduler> make_horovod(const SchedulerOptions& o, Arch) {
  const double fusion = o.fusion_bytes.value_or(kHorovodDefaultFusionBytes);
  const double cycle = o.cycle_s.value_or(kHorovodDefaultCycleS);
  if (!(fusion >= 0)) throw Error("", 0, "fusion_threshold", "must be >= 0");
  if (!(cycle > 0)) throw Error("", 0, "cycle_time", "must be > 0");
  return std::make_unique<Horovod>(fusion, cycle);
}

}  // namespace dmlkit::comm
