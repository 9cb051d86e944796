// FIFO experience replay: a ring of `capacity` samples, each a state (floats), an action mask
// (bytes; 0 = not allowed), the action taken (or a class label) and a target (a reward or return);
// when full the oldest sample is overwritten. Batches are drawn uniformly without replacement.
// Used by DL2's supervised warm-up memory (states and teacher labels; DL2 train.py's SL replay)
// and by Harmony's replay of the steps of its last intervals (second-pass.md 3.3).
#pragma once
#include <cstddef>
#include <vector>

#include "core/rng.h"

namespace dmlkit::learn {

class FifoReplay {
 public:
  FifoReplay() = default;
  FifoReplay(size_t capacity, int state_size, int mask_size);
  size_t capacity() const { return capacity_; }
  size_t size() const { return full_ ? capacity_ : next_; }
  bool full() const { return full_; }
  bool empty() const { return size() == 0; }
  int state_size() const { return state_size_; }
  int mask_size() const { return mask_size_; }
  // Stores a sample (mask may be null when mask_size is 0); returns its slot.
  size_t add(const float* state, const unsigned char* mask, int action, float target);
  // min(n, size()) distinct slots drawn uniformly (a partial Fisher-Yates shuffle of 0..size()-1).
  void sample(size_t n, Rng& rng, std::vector<size_t>& out);
  const float* state(size_t slot) const { return states_.data() + slot * state_size_; }
  const unsigned char* mask(size_t slot) const { return masks_.data() + slot * mask_size_; }
  int action(size_t slot) const { return actions_[slot]; }
  float target(size_t slot) const { return targets_[slot]; }
  void clear();

 private:
  size_t capacity_ = 0;
  int state_size_ = 0, mask_size_ = 0;
  std::vector<float> states_;
  std::vector<unsigned char> masks_;
  std::vector<int> actions_;
  std::vector<float> targets_;
  std::vector<size_t> index_;
  size_t next_ = 0;
  bool full_ = false;
};

}  // namespace dmlkit::learn
