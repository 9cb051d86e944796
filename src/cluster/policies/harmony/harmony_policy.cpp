// The harmony policy and its registry entry; see harmony_policy.h.
#include "cluster/policies/harmony/harmony_policy.h"

#include "cluster/policies/factories.h"
#include "cluster/policies/harmony/harmony_online.h"
#include "core/error.h"

namespace dmlkit::cluster {

HarmonyPolicy::HarmonyPolicy(const HarmonyModel& model, const ClusterSpec* expected_cluster,
                             const HarmonyPolicyConfig& config, uint64_t seed)
    : model_(model), config_(config), seed_(seed) {
  if (expected_cluster != nullptr) placer(*expected_cluster);
}

HarmonyPolicy::~HarmonyPolicy() = default;

HarmonyPlacer& HarmonyPolicy::placer(const ClusterSpec& cluster) {
  if (placer_ && cluster_ == &cluster) return *placer_;
  if (cluster.num_servers() != model_.shape.servers)
    throw Error(model_.path, 0, "meta.servers",
                "the Harmony model was trained for " + std::to_string(model_.shape.servers) + " servers; the cluster '" +
                    cluster.name + "' has " + std::to_string(cluster.num_servers()) +
                    " (train one for it: dmlkit cluster train harmony)");
  placer_ = std::make_unique<HarmonyPlacer>(model_.shape, cluster, model_.policy, seed_);
  placer_->set_select_max(config_.select_max);
  cluster_ = &cluster;
  if (config_.online_update && !online_) online_ = std::make_unique<HarmonyOnline>(model_, config_, seed_);
  if (online_) placer_->set_sink(online_.get());
  return *placer_;
}

void HarmonyPolicy::before_decision(PlacementState& state) {
  HarmonyPlacer& p = placer(state.cluster());
  if (online_) online_->before_decision(state, p);
}

void HarmonyPolicy::decide(const PlacementState& state, std::span<const RunningPsJob> running,
                           std::span<const PsJobSpec* const> fresh, std::vector<Placement>& out) {
  placer(state.cluster()).decide(running, fresh, out);
}

PolicyEntry harmony_entry() {
  return {"harmony",
          "Harmony (INFOCOM'19): a policy network places each new PS job's tasks one inference at a time, "
          "learned by DRL on a reward-prediction model (placement only)",
          [](const PolicyOptions& o, const Knobs& k) -> std::unique_ptr<Policy> {
            std::string name = k.get_string("harmony.model");
            if (name == "auto") name = harmony_default_model(o.experiment, o.interference);
            const HarmonyModel m = load_harmony_model(name);
            HarmonyPolicyConfig c;
            c.select_max = k.get_string("harmony.select") == "max";
            c.online_update = k.get_bool("harmony.online_update");
            c.online_every = static_cast<int>(k.get_int("harmony.online_every"));
            return std::make_unique<HarmonyPolicy>(m, nullptr, c, o.seed);
          },
          {knob_string("harmony.model", "auto",
                       "trained model: a bundled name (data/models/NAME.json), a model file's path, or auto (the "
                       "bundled model of the preset and interference model: PRESET-INTERFERENCE, else PRESET, else "
                       "harmony-testbed-INTERFERENCE, else harmony-testbed)"),
           knob_enum("harmony.select", "max", {"max", "sample"},
                     "take the most probable allowed action or draw from the masked distribution"),
           knob_bool("harmony.online_update", false,
                     "update the reward model and the policy at run time from the speeds and rewards seen"),
           knob_int("harmony.online_every", 5, "online update: decisions between two updates").range(1, 1000000)},
          {.gpu_jobs = false, .ps_jobs = true, .make_ps = nullptr, .ps_variant = ""}};
}

}  // namespace dmlkit::cluster
