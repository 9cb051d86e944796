// Harmony's per-interval placement; see harmony_placer.h.
#include "cluster/policies/harmony/harmony_placer.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::cluster {

HarmonyPlacer::HarmonyPlacer(const HarmonyShape& shape, const ClusterSpec& cluster, const learn::StoredNet& policy,
                             uint64_t seed)
    : LearnedPlacerBase(Rng(seed).split(0x4a7)), board_(shape, cluster), net_(policy.shape, policy.parameters) {
  if (policy.shape.inputs != shape.state_size() || policy.shape.outputs != shape.actions())
    throw Error("harmony: the policy network does not match " + std::to_string(shape.servers) + " servers and " +
                std::to_string(shape.jobs) + " job slots");
  state_.resize(shape.state_size());
  mask_.resize(shape.actions());
}

void HarmonyPlacer::set_parameters(const std::vector<float>& parameters) {
  net_ = learn::MlpForward(net_.shape(), parameters);
}

int HarmonyPlacer::choose() {
  if (const auto h = explore()) {
    const int a = board_.heuristic_action(*h);
    if (a >= 0) {
      ++stats_.explored;
      return a;
    }
  }
  return pick(net_.run(state_.data()), mask_);
}

void HarmonyPlacer::decide(std::span<const HarmonyRunningJob> running, std::span<const PsJobSpec* const> fresh,
                           std::vector<Placement>& out) {
  out.assign(fresh.size(), Placement{});
  placed_.clear();
  const int group = board_.shape().new_jobs;
  for (size_t first = 0; first < fresh.size(); first += static_cast<size_t>(group)) {
    const size_t last = std::min(fresh.size(), first + static_cast<size_t>(group));
    board_.clear();
    // Running jobs, most recent last (arrival order), then the ones this decision placed.
    for (const HarmonyRunningJob& r : running) board_.add_running(*r.spec, r.placement);
    for (const HarmonyRunningJob& r : placed_) board_.add_running(*r.spec, r.placement);
    for (size_t i = first; i < last; ++i) board_.add_new(*fresh[i], fresh[i]->user_workers, fresh[i]->user_ps);
    for (;;) {
      board_.mask(mask_.data());
      if (std::find(mask_.begin(), mask_.end(), 1) == mask_.end()) break;
      board_.observe(state_.data());
      const int a = choose();
      if (a < 0) break;
      if (sink_ != nullptr) sink_->on_step(state_.data(), mask_.data(), a);
      board_.apply(a);
      ++stats_.steps;
    }
    for (size_t i = first; i < last; ++i) {
      const int n = static_cast<int>(i - first);
      if (!board_.complete(n)) {
        board_.rollback(n);
        ++stats_.rolled_back;
        continue;
      }
      out[i] = board_.placement(n);
      placed_.push_back({fresh[i], out[i]});
    }
  }
}

}  // namespace dmlkit::cluster
