// The online phase of the `harmony` policy (harmony.online_update; harmony_policy.h has the rules):
// collects (placement, measured speed) samples and the policy's own steps with the reward of the
// interval after them, and every few decisions updates the reward model and the actor (and critic)
// with libtorch (learn/regression.h, learn/actor_critic.h, learn/fifo_replay.h).
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/policies/harmony/harmony_placer.h"
#include "cluster/policies/placement/placement_policy.h"
#include "learn/fifo_replay.h"
#include "learn/regression.h"
#include "learn/torch_plugin.h"

namespace dmlkit::cluster {

struct HarmonyPolicyConfig;

class HarmonyOnline final : public HarmonyStepSink {
 public:
  HarmonyOnline(const HarmonyModel& model, const HarmonyPolicyConfig& config, uint64_t seed);
  ~HarmonyOnline() override;
  void on_step(const float* state, const unsigned char* mask, int action) override;
  // At the start of a decision: credits the last decision's steps, records the speed samples and
  // updates the networks when due (then sets the placer's new policy parameters).
  void before_decision(const PlacementState& state, HarmonyPlacer& placer);
  long updates() const { return updates_; }
  size_t speed_samples() const { return data_.rows(); }

 private:
  HarmonyModel model_;
  const HarmonyPolicyConfig& config_;
  Rng rng_;
  learn::RegressionData data_;
  std::unique_ptr<learn::RegressionTrainer> rm_;
  std::unique_ptr<learn::MlpTrainerEngine> actor_, critic_;
  learn::FifoReplay replay_;
  std::vector<float> pend_states_;
  std::vector<unsigned char> pend_masks_;
  std::vector<int> pend_actions_;
  std::map<int, std::pair<double, double>> snapshot_;  // job id -> (epochs done, E)
  long decisions_ = 0, updates_ = 0;
};

}  // namespace dmlkit::cluster
