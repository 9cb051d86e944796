// Harmony's training environment; see harmony_env.h (the interval loop: ps_interval_env.h).
#include "cluster/train/harmony_env.h"

#include <algorithm>

#include "cluster/train/ps_interval_env.h"

namespace dmlkit::cluster {

HarmonyEpisode run_harmony_env(const ClusterSpec& cluster, const Workload& workload, HarmonyPlacer& placer,
                               const HarmonySpeedFn& speed, const std::vector<float>& speed_scale,
                               const HarmonyEnvConfig& c, const std::function<void(double)>& on_interval) {
  (void)cluster;
  const size_t n_slots = static_cast<size_t>(placer.shape().jobs);
  std::vector<double> chunk_sp;
  // More running jobs than the model's N job slots: predicted N jobs at a time.
  const auto speeds = [&](const std::vector<HarmonyPlacedJob>& placed, std::vector<double>& sp) {
    sp.assign(placed.size(), 0.0);
    for (size_t at = 0; at < placed.size(); at += n_slots) {
      const size_t n = std::min(placed.size() - at, n_slots);
      speed(std::span<const HarmonyPlacedJob>(placed.data() + at, n), chunk_sp);
      std::copy_n(chunk_sp.begin(), n, sp.begin() + static_cast<long>(at));
    }
  };
  const auto reference = [&](const HarmonyPlacedJob& j) {
    return static_cast<double>(speed_scale[std::clamp(j.type, 0, static_cast<int>(speed_scale.size()) - 1)]);
  };
  return run_interval_env<HarmonyRunningJob>(std::string("harmony"), workload, placer, c, &harmony_placed_job,
                                             std::function<void(const std::vector<HarmonyPlacedJob>&, std::vector<double>&)>(speeds),
                                             std::function<double(const HarmonyPlacedJob&)>(reference), on_interval);
}

}  // namespace dmlkit::cluster
