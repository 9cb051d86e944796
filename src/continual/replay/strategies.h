// The concrete replay strategies (one .cpp each); build them by name with make_replay_strategy().
#pragma once
#include "continual/replay/strategy.h"

namespace dmlkit::continual {

// Uniform sample of `budget` rows without replacement, ignoring classes.
class RandomStrategy : public ReplayStrategy {
 public:
  std::string name() const override { return "random"; }
  std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                             Rng& rng) const override;
};

// Reservoir sampling (Vitter's algorithm R) over the pool as a stream: the first `budget` rows
// fill the buffer; row t (0-based) then replaces a uniform slot with probability budget / (t+1).
class ReservoirStrategy : public ReplayStrategy {
 public:
  std::string name() const override { return "reservoir"; }
  std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                             Rng& rng) const override;
};

// k = budget / classes rows of each class, uniformly without replacement.
class ClassBalancedStrategy : public ReplayStrategy {
 public:
  std::string name() const override { return "class-balanced"; }
  std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                             Rng& rng) const override;
};

// iCaRL herding (Rebuffi et al., CVPR 2017): per class, on L2-normalised features, greedily add
// the row that keeps the mean of the chosen rows closest to the class mean.
class HerdingStrategy : public ReplayStrategy {
 public:
  std::string name() const override { return "herding"; }
  std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                             Rng& rng) const override;
};

// Angle-based selection of "Angle Matters" (spec B.7, the official utils/buffer.py
// _select_by_angle): per class c, prototype = normalize(mean f_i), cos_i = cos(f_i, prototype);
//   small: the k largest cos_i (most prototype-like, smallest angle);
//   mid:   the k rows with cos_i closest to the median of {cos_i}: sort by |cos_i - median|;
//   large: the k smallest cos_i.
// Ties keep the lower index first. The median of an even count is the lower middle value.
enum class AngleMode { small, mid, large };
class AngleStrategy : public ReplayStrategy {
 public:
  explicit AngleStrategy(AngleMode mode) : mode_(mode) {}
  std::string name() const override;
  std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                             Rng& rng) const override;

 private:
  AngleMode mode_;
};

// Streaming mid-angle buffer (spec B.7, AngleMidSampling): a buffer of `capacity` rows with a
// per-class quota capacity / (classes seen so far). While not full, every row is added. Then a
// row of class c:
//   - if c holds fewer than its quota: evicts the least-mid row (largest |cos - median|, computed
//     over that class's rows in the buffer) of the class most over its quota;
//   - else, if the row is closer to the median of its own class's buffered rows than that class's
//     least-mid row, it replaces that row;
//   - else reservoir sampling: with probability capacity / (rows seen), a uniform slot.
// [A] The prototype and median are those of the class's rows currently in the buffer.
class AngleMidStreamBuffer {
 public:
  AngleMidStreamBuffer(const learn::Matrix& features, size_t capacity);
  void offer(size_t row, int label, Rng& rng);
  const std::vector<size_t>& rows() const { return rows_; }

 private:
  // Slot (index into rows_) of the least-mid row of `label` and that row's |cos - median|; also the
  // |cos - median| a candidate row would have against the same class statistics.
  struct LeastMid {
    size_t slot = 0;
    double distance = 0;
    double candidate_distance = 0;
  };
  LeastMid least_mid(int label, size_t candidate_row) const;
  const learn::Matrix& features_;
  size_t capacity_;
  size_t seen_ = 0;
  std::vector<size_t> rows_;
  std::vector<int> labels_;
  std::vector<int> seen_classes_;
};

class AngleMidStreamStrategy : public ReplayStrategy {
 public:
  std::string name() const override { return "angle-mid-stream"; }
  std::vector<size_t> select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                             Rng& rng) const override;
};

}  // namespace dmlkit::continual
