// FIFO experience replay; see fifo_replay.h.
#include "learn/fifo_replay.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace dmlkit::learn {

FifoReplay::FifoReplay(size_t capacity, int state_size, int mask_size)
    : capacity_(capacity), state_size_(state_size), mask_size_(mask_size) {
  if (capacity == 0 || state_size < 0 || mask_size < 0) throw Error("", 0, "replay", "capacity must be positive");
  states_.assign(capacity * static_cast<size_t>(state_size), 0.0f);
  masks_.assign(capacity * static_cast<size_t>(mask_size), 0);
  actions_.assign(capacity, 0);
  targets_.assign(capacity, 0.0f);
}

size_t FifoReplay::add(const float* state, const unsigned char* mask, int action, float target) {
  const size_t slot = next_;
  std::copy_n(state, state_size_, states_.begin() + static_cast<long>(slot * state_size_));
  if (mask_size_ > 0) std::copy_n(mask, mask_size_, masks_.begin() + static_cast<long>(slot * mask_size_));
  actions_[slot] = action;
  targets_[slot] = target;
  if (++next_ == capacity_) {
    next_ = 0;
    full_ = true;
  }
  return slot;
}

void FifoReplay::sample(size_t n, Rng& rng, std::vector<size_t>& out) {
  index_.resize(size());
  std::iota(index_.begin(), index_.end(), 0);
  const size_t k = rng.sample_prefix(index_.begin(), index_.end(), n);
  out.assign(index_.begin(), index_.begin() + static_cast<long>(k));
}

void FifoReplay::clear() {
  next_ = 0;
  full_ = false;
}

}  // namespace dmlkit::learn
