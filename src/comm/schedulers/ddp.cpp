// ddp: PyTorch DistributedDataParallel gradient bucketing (Li et al., VLDB 2020; reducer.cpp).
// Algorithm: parameters are assigned to buckets in reverse forward order (the order gradients
// become ready); a bucket is closed once it reaches its cap -- 1 MiB for the first bucket
// (kDefaultFirstBucketBytes), 25 MiB for the others (bucket_cap_mb=25, really MiB); a bucket's
// all-reduce is launched when all its gradients are ready, buckets are launched in order, and the
// collectives run one at a time (one NCCL stream).
// Assumptions [A]: buckets are built once from the model order (DDP rebuilds them after the first
// iteration in the observed ready order, which for a chain is the same); all-reduce only.
#include "comm/scheduler.h"
#include "comm/schedulers/priority_queue.h"
#include "core/error.h"

namespace dmlkit::comm {
namespace {

class Ddp final : public CommScheduler {
 public:
  Ddp(double cap, double first_cap) : cap_(cap), first_cap_(first_cap) {
    PriorityCreditQueue::Config c;
    c.max_in_flight = 1;
    queue_.set_config(c);
  }
  void setup(const TrainingWorkload& w, const NetworkConfig&) override {
    workload_ = &w;
    bucket_of_.assign(w.tensors.size(), -1);
    buckets_.clear();
    double bytes = 0;
    for (int t = static_cast<int>(w.tensors.size()) - 1; t >= 0; --t) {
      if (buckets_.empty() || bytes >= (buckets_.size() == 1 ? first_cap_ : cap_)) {
        buckets_.push_back({});
        bytes = 0;
      }
      buckets_.back().push_back(t);
      bucket_of_[t] = static_cast<int>(buckets_.size()) - 1;
      bytes += w.tensors[t].bytes;
    }
    ready_count_.assign(buckets_.size(), 0);
  }
  void on_ready(int tensor, double) override { ++ready_count_[bucket_of_[tensor]]; }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double, std::vector<Transfer>& out) override {
    while (next_ < buckets_.size() && ready_count_[next_] == static_cast<int>(buckets_[next_].size())) {
      std::vector<Chunk> chunks;
      double bytes = 0;
      for (int t : buckets_[next_]) {
        chunks.push_back({t, workload_->tensors[t].bytes});
        bytes += workload_->tensors[t].bytes;
      }
      ready_count_[next_] = 0;
      queue_.push(chunks, bytes, static_cast<double>(launched_++), static_cast<long>(next_));
      ++next_;
    }
    if (next_ == buckets_.size()) next_ = 0;  // next iteration starts again at bucket 0
    queue_.poll(out);
  }
  const std::vector<std::vector<int>>& buckets() const { return buckets_; }

 private:
  double cap_, first_cap_;
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
  std::vector<std::vector<int>> buckets_;
  std::vector<int> bucket_of_;
  std::vector<int> ready_count_;
  size_t next_ = 0;
  long launched_ = 0;
};

}  // namespace

SchedulerEntry ddp_entry() {
  return {"ddp",
          "PyTorch DDP buckets: 25 MiB, first bucket 1 MiB",
          [](const Knobs& knobs, const SchedulerContext&) -> std::unique_ptr<CommScheduler> {
            return std::make_unique<Ddp>(knobs.get_double("ddp.bucket-mib") * 1024 * 1024,
                                         knobs.get_double("ddp.first-bucket-mib") * 1024 * 1024);
          },
          {knob_double("ddp.bucket-mib", 25, "bucket cap (MiB)").at_least(0, true),
           knob_double("ddp.first-bucket-mib", 1, "first bucket cap (MiB)").at_least(0, true)},
          {.ps = false}};
}

}  // namespace dmlkit::comm
