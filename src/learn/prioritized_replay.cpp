// See prioritized_replay.h.
#include "learn/prioritized_replay.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace dmlkit::learn {

PrioritizedReplay::PrioritizedReplay(const PrioritizedReplayConfig& config) : config_(config), beta_(config.beta0) {
  if (config_.capacity == 0) throw Error("replay: field 'capacity' must be positive");
  tree_.assign(2 * config_.capacity - 1, 0.0);
}

void PrioritizedReplay::set(size_t slot, double p) {
  size_t i = slot + config_.capacity - 1;
  const double change = p - tree_[i];
  tree_[i] = p;
  while (i != 0) {
    i = (i - 1) / 2;
    tree_[i] += change;
  }
}

size_t PrioritizedReplay::add(double priority) {
  if (!(priority > 0) || !std::isfinite(priority)) throw Error("replay: a priority must be positive and finite");
  const size_t slot = next_;
  set(slot, priority);
  if (++next_ >= config_.capacity) {
    next_ = 0;
    full_ = true;
  }
  return slot;
}

double PrioritizedReplay::reward_priority(double reward) {
  rewards_.push_back(reward);
  reward_sum_ += reward;
  if (rewards_.size() > config_.capacity) {
    reward_sum_ -= rewards_.front();
    rewards_.pop_front();
  }
  return std::max(1.0, reward - mean_stored_reward());
}

double PrioritizedReplay::mean_stored_reward() const {
  return rewards_.empty() ? 0.0 : reward_sum_ / static_cast<double>(rewards_.size());
}

size_t PrioritizedReplay::find(double v) const {
  size_t parent = 0;
  for (;;) {
    const size_t left = 2 * parent + 1;
    if (left >= tree_.size()) break;
    if (v <= tree_[left]) {
      parent = left;
    } else {
      v -= tree_[left];
      parent = left + 1;
    }
  }
  return parent - (config_.capacity - 1);
}

void PrioritizedReplay::sample(size_t n, Rng& rng, Batch& out) {
  if (size() == 0) throw Error("replay: sampling an empty replay");
  out.slots.resize(n);
  out.weights.resize(n);
  beta_ = std::min(1.0, beta_ + config_.beta_step);
  const double total_p = total();
  const size_t used = size();
  double min_p = INFINITY;
  for (size_t s = 0; s < used; ++s) min_p = std::min(min_p, priority(s));
  const double min_prob = min_p / total_p;
  const double seg = total_p / static_cast<double>(n);
  for (size_t i = 0; i < n; ++i) {
    const double v = rng.uniform(seg * static_cast<double>(i), seg * static_cast<double>(i + 1));
    size_t slot = find(v);
    if (slot >= used) slot = used - 1;  // rounding at the right edge of a tree not yet full
    out.slots[i] = slot;
    out.weights[i] = std::pow(priority(slot) / total_p / min_prob, -beta_);
  }
}

void PrioritizedReplay::update(const std::vector<size_t>& slots, const std::vector<double>& abs_errors) {
  for (size_t i = 0; i < slots.size(); ++i)
    set(slots[i], std::pow(std::min(abs_errors[i] + config_.epsilon, config_.max_error), config_.alpha));
}

}  // namespace dmlkit::learn
