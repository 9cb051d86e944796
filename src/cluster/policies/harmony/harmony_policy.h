// The `harmony` placement policy (Bao, Peng, Wu, "Deep Learning-based Job Placement in Distributed
// Machine Learning Clusters", INFOCOM 2019; second-pass.md 3.1-3.4, from a third-party reading note
// of the paper, no public code): at every decision it places the newly arrived parameter-server
// jobs with the user's PS and worker counts, never moving running ones (policies/placement/
// placement_policy.h does the placement-only part), by running its policy network once per task
// over the state (x, r, w, p, v, d) (harmony_state.h, harmony_placer.h). Inference only, on
// learn/mlp.h, from a model file (`harmony.model`: a bundled name or a path; harmony_model.h).
//
// `harmony.online_update` (docs/harmony-learning.md): at run time the policy also learns from what
// it sees, as the paper's online phase: at each decision it records the running jobs' measured
// speeds for their placement (samples for the reward model) and its own steps with the reward of
// the interval that followed (normalised progress, DL2's); every `harmony.online_every` decisions
// it fits the reward model for a few epochs on all samples so far and takes actor-critic steps on
// the replay of its steps (learn/actor_critic.h; libtorch is loaded then). The updated networks stay
// in memory for the rest of the run ([A] ours: what the paper's online update does in detail is not
// known).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/policies/harmony/harmony_placer.h"

namespace dmlkit::cluster {

struct HarmonyPolicyConfig {
  bool select_max = true;     // harmony.select
  bool online_update = false;  // harmony.online_update
  int online_every = 5;
  int online_rm_epochs = 5;
  int online_rl_steps = 5;
  double online_lr = 1e-4;
  double entropy_weight = 0.05;
};

class HarmonyOnline;  // harmony_online.cpp

class HarmonyPolicy final : public LearnedPlacementPolicy {
 public:
  HarmonyPolicy(const HarmonyModel& model, const ClusterSpec* expected_cluster, const HarmonyPolicyConfig& config,
                uint64_t seed);
  ~HarmonyPolicy() override;
  // Training: exploration and the sink of the steps (harmony_placer.h).
  HarmonyPlacer& placer(const ClusterSpec& cluster);

 protected:
  void before_decision(PlacementState& state) override;
  void decide(const PlacementState& state, std::span<const RunningPsJob> running,
              std::span<const PsJobSpec* const> fresh, std::vector<Placement>& out) override;

 private:
  HarmonyModel model_;
  HarmonyPolicyConfig config_;
  uint64_t seed_;
  std::unique_ptr<HarmonyPlacer> placer_;
  const ClusterSpec* cluster_ = nullptr;
  std::unique_ptr<HarmonyOnline> online_;
};

}  // namespace dmlkit::cluster
