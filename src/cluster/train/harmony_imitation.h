// Harmony's imitation warm start, [A] ours (not in the paper, which starts its DRL from a random
// network): a teacher placer (one of the baselines: by default the one with the best validation JCT
// under the preset's interference model) runs on the training traces in the simulator, and each of
// its decisions is replayed on Harmony's board (harmony_state.h) as the sequence of Harmony actions
// that builds the same placement: the new jobs in arrival order, N' at a time as the placer takes
// them; each placed job's tasks one at a time, PS and worker alternating in the request's
// proportion (next_task_is_ps), each on the lowest-id server where the teacher still has a task of
// that kind; a job the teacher left waiting becomes that job's "defer" action when the shape has
// them (HarmonyShape::defer), else gives no sample. Every step is one sample (the state before it,
// its mask, the action); the actor is fitted to them (masked cross-entropy) before DRL improves it
// on the reward model (harmony_train.h). Knobs: cluster train harmony --imitate, --il-steps,
// --il-lr, --il-traces.
#pragma once
#include <memory>
#include <vector>

#include "cluster/policies/harmony/harmony_placer.h"
#include "cluster/policy.h"

namespace dmlkit::cluster {

struct HarmonyImitationData {
  int state_size = 0, actions = 0;
  std::vector<float> states;          // rows x state_size
  std::vector<unsigned char> masks;   // rows x actions
  std::vector<int> labels;            // rows
  long decisions = 0;                 // teacher decisions seen
  long dropped_jobs = 0;              // placed jobs whose replay failed (none expected)
  size_t rows() const { return labels.size(); }
  void append(const HarmonyImitationData& o);
};

// Runs the teacher and records its decisions as Harmony steps into `out`.
class HarmonyImitationRecorder final : public Policy {
 public:
  HarmonyImitationRecorder(std::unique_ptr<Policy> teacher, const HarmonyShape& shape, const ClusterSpec& cluster,
                           HarmonyImitationData& out);
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override;
  const char* ps_assignment() const override { return teacher_->ps_assignment(); }
  bool handles_ps_jobs() const override { return teacher_->handles_ps_jobs(); }
  bool charges_restarts() const override { return teacher_->charges_restarts(); }

 private:
  void record(int action);
  std::unique_ptr<Policy> teacher_;
  HarmonyBoard board_;
  HarmonyImitationData& data_;
  std::vector<float> state_;
  std::vector<unsigned char> mask_;
};

}  // namespace dmlkit::cluster
