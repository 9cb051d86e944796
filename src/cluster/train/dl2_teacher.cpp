// DL2's supervised warm-up recorder; see dl2_teacher.h.
#include "cluster/train/dl2_teacher.h"

#include "core/error.h"

namespace dmlkit::cluster {

Dl2Recorder::Dl2Recorder(std::unique_ptr<Policy> teacher, const Dl2Shape& shape, uint64_t seed, bool shuffle, Sink sink,
                         std::function<void()> on_slot)
    : teacher_(std::move(teacher)),
      slot_(shape),
      rng_(Rng(seed).split(0x51)),
      shuffle_(shuffle),
      sink_(std::move(sink)),
      on_slot_(std::move(on_slot)) {
  auto* t = dynamic_cast<Dl2Teacher*>(teacher_.get());
  if (t == nullptr) throw Error("dl2 teacher: only the DL2 simulator's heuristics (drf-dl2, fifo-dl2, ...) can teach");
  t->observe_steps(this);
  sample_.state.resize(shape.state_size());
}

void Dl2Recorder::schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
  slot_.begin(view, jobs, out, /*initial_bundle=*/false);
  jobs_ = jobs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const size_t id = static_cast<size_t>(jobs[i].job->id);
    if (id < share_by_id_.size()) slot_.set_dominant_share(static_cast<int>(i), share_by_id_[id]);
  }
  teacher_->schedule(view, jobs, out);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const size_t id = static_cast<size_t>(jobs[i].job->id);
    if (id >= share_by_id_.size()) share_by_id_.resize(id + 1, 0.0);
    share_by_id_[id] = slot_.dominant_share(static_cast<int>(i));
  }
  if (on_slot_) on_slot_();
}

void Dl2Recorder::record(int job, Dl2Task task) {
  slot_.select_window(shuffle_ ? &rng_ : nullptr);
  const int col = slot_.column_of(job);
  if (col < 0) {
    ++dropped_;
  } else {
    slot_.observe(sample_.state.data());
    sample_.label = 3 * col + static_cast<int>(task);
    sink_(sample_);
  }
  slot_.count(job, task);
}

void Dl2Recorder::on_step(size_t job, int workers, int ps) {
  const int j = static_cast<int>(job);
  if (workers > 0 && ps > 0) {
    record(j, Dl2Task::Worker);
    record(j, Dl2Task::Ps);
  } else {
    record(j, workers > 0 ? Dl2Task::Worker : Dl2Task::Ps);
  }
}

}  // namespace dmlkit::cluster
