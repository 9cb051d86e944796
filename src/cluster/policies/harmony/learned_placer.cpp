// What Harmony's learned placers share; see learned_placer.h.
#include "cluster/policies/harmony/learned_placer.h"

#include <algorithm>

#include "learn/mlp.h"

namespace dmlkit::cluster {

std::optional<PlacementHeuristic> LearnedPlacerBase::explore() {
  if (epsilon_ > 0 && rng_.uniform() < epsilon_)
    return rng_.uniform() < 0.5 ? PlacementHeuristic::BinPacking : PlacementHeuristic::LoadBalancing;
  return std::nullopt;
}

int LearnedPlacerBase::pick(const std::vector<float>& logits, const std::vector<unsigned char>& mask) {
  if (!learn::masked_softmax(logits, mask, probs_)) return -1;
  if (select_max_) return static_cast<int>(std::max_element(probs_.begin(), probs_.end()) - probs_.begin());
  const double u = rng_.uniform();
  double acc = 0;
  int last = -1;
  for (size_t a = 0; a < probs_.size(); ++a) {
    if (probs_[a] <= 0) continue;
    acc += probs_[a];
    last = static_cast<int>(a);
    if (acc > u) break;
  }
  return last;
}

void LearnedPlacementPolicy::place_job(PlacementState& state, int i) {
  const int one[1] = {i};
  place_batch(state, one);
}

void LearnedPlacementPolicy::place_batch(PlacementState& state, std::span<const int> waiting) {
  running_.clear();
  for (int i = 0; i < state.num_jobs(); ++i)
    if (state.running(i)) running_.push_back({&state.spec(i), state.job(i).placement});
  before_decision(state);
  fresh_.clear();
  for (int i : waiting) fresh_.push_back(&state.spec(i));
  decide(state, running_, fresh_, out_);
  for (size_t k = 0; k < waiting.size(); ++k) {
    const int i = waiting[k];
    for (const Slice& s : out_[k]) {
      for (int w = 0; w < s.workers; ++w) state.add_task(i, TaskRole::Worker, s.server);
      for (int q = 0; q < s.ps; ++q) state.add_task(i, TaskRole::Ps, s.server);
    }
  }
}

}  // namespace dmlkit::cluster
