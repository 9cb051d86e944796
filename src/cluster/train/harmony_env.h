// The environment Harmony's DRL trains in (second-pass.md 3.1, 3.4: "DRL training of the placement
// policy, using predicted rewards"): the jobs of a training trace arrive, every interval the placer
// (policies/harmony/harmony_placer.h) places the new ones (never moving running ones), and every
// running job then trains for the interval at the speed the reward-prediction model predicts for
// the placement of all concurrent jobs. The interval's reward is DL2's normalised progress
// sum_j (epochs trained by j in the interval) / E_j.
// [A] Simplifications, ours (the paper trains on the reward model without saying how time moves):
//   - decisions at interval boundaries only: a job finishing mid-interval frees its servers at the
//     next boundary (its completion time is still exact at its predicted speed);
//   - no restart or start-up delay;
//   - a predicted speed is floored at `min_speed_share` of the type's reference speed (a network
//     that predicts 0 must not stall an episode), and an episode stops after `max_intervals`;
//   - more concurrent jobs than the model's N job slots: the speeds are predicted N jobs at a time.
#pragma once
#include <functional>
#include <vector>

#include "cluster/model/job.h"
#include "cluster/train/ps_interval_env.h"
#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/policies/harmony/harmony_placer.h"

namespace dmlkit::cluster {

using HarmonyEnvConfig = IntervalEnvConfig;
using HarmonyEpisode = IntervalEpisode;

// Speeds (samples/s) of the running jobs for their placement: the reward model, or (tests) any.
using HarmonySpeedFn = std::function<void(std::span<const HarmonyPlacedJob>, std::vector<double>&)>;

// Runs one episode. `on_interval(reward)` is called after each interval (the placer's steps of that
// interval came before it through its sink).
HarmonyEpisode run_harmony_env(const ClusterSpec& cluster, const Workload& workload, HarmonyPlacer& placer,
                               const HarmonySpeedFn& speed, const std::vector<float>& speed_scale,
                               const HarmonyEnvConfig& config, const std::function<void(double)>& on_interval);

}  // namespace dmlkit::cluster
