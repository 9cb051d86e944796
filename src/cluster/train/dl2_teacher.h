// DL2's supervised warm-up data (Peng et al., TPDS 2021; pengyanghua/DL2 train.py sl_agent,
// scheduler_base.py Scheduler._state, drf_env.py): a teacher heuristic (drf-dl2 by default, any
// of the DL2 simulator's heuristics) schedules as usual, and every single allocation step becomes
// one sample (the state before the step, the step as a label). A worker + PS bundle of the teacher
// is two samples, "add worker" (3i) then "add PS" (3i+1), as the authors' DRF records it. With
// `shuffle`, every state deals its window's jobs to a random permutation of the columns
// (JOB_ORDER_SHUFFLE, on in the authors' SL).
// [C] A job's dominant share in the state is the one it had when its counts last changed, so a job
//     not yet given a task in this slot shows last slot's share (scheduler_base._prepare resets
//     the counts but not dom_share).
// [A] A step of a job outside the window (more than L unfinished jobs) has no column: the authors
//     store it with an all-zero label (a sample with zero loss); we drop it.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "cluster/policies/dl2/dl2_slot.h"
#include "cluster/policies/ps/dl2_steps.h"
#include "cluster/policy.h"

namespace dmlkit::cluster {

struct Dl2SlSample {
  std::vector<float> state;
  int label = 0;
};

// A Policy that runs the teacher and records its steps. `sink` receives each sample (the vector
// is reused: copy what you keep); `on_slot` (may be null) is called after each decision.
class Dl2Recorder final : public Policy, private Dl2StepObserver {
 public:
  using Sink = std::function<void(const Dl2SlSample&)>;
  Dl2Recorder(std::unique_ptr<Policy> teacher, const Dl2Shape& shape, uint64_t seed, bool shuffle, Sink sink,
              std::function<void()> on_slot = {});
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override;
  bool handles_ps_jobs() const override { return true; }
  const char* ps_assignment() const override { return teacher_->ps_assignment(); }
  long dropped() const { return dropped_; }

 private:
  void on_step(size_t job, int workers, int ps) override;
  void record(int job, Dl2Task task);

  std::unique_ptr<Policy> teacher_;
  Dl2Slot slot_;
  Rng rng_;
  bool shuffle_;
  Sink sink_;
  std::function<void()> on_slot_;
  Dl2SlSample sample_;
  std::vector<double> share_by_id_;
  std::span<const JobView> jobs_;
  long dropped_ = 0;
};

}  // namespace dmlkit::cluster
