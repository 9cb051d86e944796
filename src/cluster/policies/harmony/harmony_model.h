// Harmony's trained networks and their model file (learn/model_file.h, kind "harmony"):
//   policy  the actor: state (harmony_state.h) -> logits over the 2 M N' placement actions
//   value   the critic: state -> expected return (optional: the value-network-off ablation has none)
//   reward  the reward-prediction model (second-pass.md 3.4): job types x, worker/PS numbers w, p
//           and the placement d of the N concurrent jobs -> each job's speed, as a share of its
//           type's reference speed (extra "speed_scale": per type, samples/s; [A] the scaling, so
//           that the eight types' very different throughputs train one network)
// meta: servers M, jobs N, new_jobs N', and how it was produced (experiment, command, seed, ...).
#pragma once
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cluster/policies/harmony/harmony_state.h"
#include "learn/mlp.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {

struct HarmonyModel {
  std::string path;
  HarmonyShape shape;
  learn::StoredNet policy, value, reward;  // value / reward may be empty (parameters.empty())
  std::vector<float> speed_scale;          // per type, samples/s (reward model's output unit)
  std::map<std::string, std::string> meta;
  bool has_value() const { return !value.parameters.empty(); }
  bool has_reward() const { return !reward.parameters.empty(); }
};

// The MLP shapes: hidden layers `hidden` (ReLU), no affine.
learn::MlpShape harmony_policy_shape(const HarmonyShape& s, const std::vector<int>& hidden);
learn::MlpShape harmony_value_shape(const HarmonyShape& s, const std::vector<int>& hidden);
learn::MlpShape harmony_reward_shape(const HarmonyShape& s, const std::vector<int>& hidden);

// A bundled model's name (data/models/NAME.json) or a path.
std::string harmony_model_path(const std::string& name_or_path);
// The bundled model `harmony.model=auto` loads for a run of `experiment` under `interference`
// (either may be ""): the first bundled one of EXPERIMENT-INTERFERENCE, EXPERIMENT,
// harmony-testbed-INTERFERENCE, harmony-testbed (a model per preset and interference model,
// data/models/README.md). family "harmony-seq2seq" (`harmony-seq2seq.model=auto`): the same with
// that prefix in place of "harmony" (harmony-testbed -> harmony-seq2seq-testbed, ...).
std::string harmony_default_model(const std::string& experiment, const std::string& interference,
                                  const std::string& family = "harmony");
// Throws Error naming the file and field on a missing or corrupt file or networks that do not
// match the shape in its meta.
HarmonyModel load_harmony_model(const std::string& name_or_path);
learn::ModelFile harmony_model_file(const HarmonyModel& m);

// The reward model at run time: predicted speeds (samples/s) of the jobs (at most shape.jobs;
// the rest get 0).
class HarmonySpeedPredictor {
 public:
  HarmonySpeedPredictor() = default;
  HarmonySpeedPredictor(const HarmonyShape& shape, const learn::StoredNet& net, std::vector<float> speed_scale);
  void predict(std::span<const HarmonyPlacedJob> jobs, std::vector<double>& speeds);
  bool ready() const { return !scale_.empty(); }

 private:
  HarmonyShape shape_;
  learn::MlpForward net_;
  std::vector<float> scale_, input_;
};

}  // namespace dmlkit::cluster
