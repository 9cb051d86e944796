// Prioritized experience replay (Schaul et al., ICLR 2016) as DL2's public trainer runs it
// (pengyanghua/DL2 prioritized_memory.py: SumTree, Memory): a sum tree over a ring of `capacity`
// slots (the oldest sample is overwritten), stratified sampling (the total priority cut into n
// equal segments, one uniform draw in each), importance weights (P(i) / P_min)^-beta with beta
// growing by beta_step per batch up to 1, and priorities after an update min(|err| + eps, cap)^alpha.
// The priority of a new sample is the caller's (DL2: max(1, r - mean of the stored rewards), see
// reward_priority()). Holds sample indices only; the caller keeps the samples in the same ring.
#pragma once
#include <cstddef>
#include <deque>
#include <vector>

#include "core/rng.h"

namespace dmlkit::learn {

struct PrioritizedReplayConfig {
  size_t capacity = 8192;
  double alpha = 0.9;       // priority exponent after an update
  double beta0 = 0.1;       // importance-sampling exponent, initial
  double beta_step = 1e-4;  // added before every batch, up to 1
  double epsilon = 0.01;    // added to |error|
  double max_error = 4.0;   // |error| + epsilon is clipped here (DL2 with its mean-reward baseline)
};

class PrioritizedReplay {
 public:
  explicit PrioritizedReplay(const PrioritizedReplayConfig& config = {});
  size_t capacity() const { return config_.capacity; }
  size_t size() const { return full_ ? config_.capacity : next_; }
  bool full() const { return full_; }
  // Stores a sample with this priority (> 0); returns its slot (the caller writes its data there).
  size_t add(double priority);
  // DL2's priority of a new sample of reward r: max(1, r - mean of the last `capacity` rewards
  // stored, r included). Call once per stored sample, before add().
  double reward_priority(double reward);
  double mean_stored_reward() const;
  struct Batch {
    std::vector<size_t> slots;
    std::vector<double> weights;  // importance-sampling weights
  };
  // n stratified draws (the replay must hold at least one sample).
  void sample(size_t n, Rng& rng, Batch& out);
  // New priorities from the absolute errors of the samples in `slots`.
  void update(const std::vector<size_t>& slots, const std::vector<double>& abs_errors);
  double total() const { return tree_[0]; }
  double priority(size_t slot) const { return tree_[slot + config_.capacity - 1]; }
  double beta() const { return beta_; }

 private:
  void set(size_t slot, double p);
  size_t find(double v) const;

  PrioritizedReplayConfig config_;
  std::vector<double> tree_;  // 2 capacity - 1 nodes; leaves at capacity - 1 ...
  size_t next_ = 0;
  bool full_ = false;
  double beta_;
  std::deque<double> rewards_;
  double reward_sum_ = 0;
};

}  // namespace dmlkit::learn
