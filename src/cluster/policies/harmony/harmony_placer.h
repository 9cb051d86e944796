// Harmony's placement decision for one interval (second-pass.md 3.3; harmony_state.h has the state,
// the actions and the masks): the new jobs are taken N' at a time in arrival order; for each group
// the policy network is run once per task, on the state updated after each placement, until every
// job of the group is placed or no action is allowed; a job left incomplete is rolled back and
// waits for the next interval. The placed jobs of a group are running jobs for the next group.
// Actions: the arg-max of the masked distribution (`select_max`, the run-time default [A]) or a
// draw from it; while training, with probability epsilon the action of a heuristic instead, bin
// packing or load balancing with equal probability (the paper's job-aware epsilon-greedy
// exploration). The network runs on learn/mlp.h (no libtorch).
#pragma once
#include <span>
#include <vector>

#include "cluster/policies/harmony/harmony_state.h"
#include "cluster/policies/harmony/learned_placer.h"
#include "core/rng.h"
#include "learn/mlp.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {

using HarmonyRunningJob = RunningPsJob;

// Receives every step taken (state before it, its mask, the action); while training.
class HarmonyStepSink {
 public:
  virtual ~HarmonyStepSink() = default;
  virtual void on_step(const float* state, const unsigned char* mask, int action) = 0;
};

using HarmonyPlacerStats = LearnedPlacerStats;

// Action choice, exploration and counters: learned_placer.h.
class HarmonyPlacer : public LearnedPlacerBase {
 public:
  HarmonyPlacer(const HarmonyShape& shape, const ClusterSpec& cluster, const learn::StoredNet& policy, uint64_t seed);
  void set_parameters(const std::vector<float>& parameters);
  void set_sink(HarmonyStepSink* sink) { sink_ = sink; }
  // out[i]: the placement of fresh[i] (empty: it waits). fresh: the new jobs in arrival order with
  // the user's (workers, PSs) in their spec (user_workers, user_ps).
  void decide(std::span<const HarmonyRunningJob> running, std::span<const PsJobSpec* const> fresh,
              std::vector<Placement>& out);
  const HarmonyShape& shape() const { return board_.shape(); }

 private:
  int choose();

  HarmonyBoard board_;
  learn::MlpForward net_;
  HarmonyStepSink* sink_ = nullptr;
  std::vector<float> state_;
  std::vector<unsigned char> mask_;
  std::vector<HarmonyRunningJob> placed_;  // jobs placed by earlier groups of this decision
};

}  // namespace dmlkit::cluster
