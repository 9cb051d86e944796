// Streaming mid-angle buffer with per-class quota (AngleMidSampling of spec B.7; see strategies.h).
#include <algorithm>
#include <cmath>

#include "continual/replay/strategies.h"

namespace dmlkit::continual {

AngleMidStreamBuffer::AngleMidStreamBuffer(const learn::Matrix& features, size_t capacity)
    : features_(features), capacity_(capacity) {}

AngleMidStreamBuffer::LeastMid AngleMidStreamBuffer::least_mid(int label, size_t candidate_row) const {
  std::vector<size_t> slots, rows;
  for (size_t s = 0; s < rows_.size(); ++s)
    if (labels_[s] == label) {
      slots.push_back(s);
      rows.push_back(rows_[s]);
    }
  LeastMid lm;
  if (rows.empty()) return lm;
  rows.push_back(candidate_row);  // cosines of members and candidate against the members' prototype
  const std::vector<double> cos_all = [&] {
    // Prototype from the members only: compute with the candidate excluded from the mean.
    std::vector<size_t> members(rows.begin(), rows.end() - 1);
    const Eigen::Index dim = features_.cols();
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(dim);
    for (size_t r : members) mean += features_.row(static_cast<Eigen::Index>(r)).transpose().cast<double>();
    const double mn = mean.norm();
    std::vector<double> c(rows.size(), 0.0);
    for (size_t k = 0; k < rows.size(); ++k) {
      const Eigen::VectorXd f = features_.row(static_cast<Eigen::Index>(rows[k])).transpose().cast<double>();
      const double fn = f.norm();
      c[k] = (fn > 0 && mn > 0) ? f.dot(mean) / (fn * mn) : 0.0;
    }
    return c;
  }();
  const double median = lower_median(std::vector<double>(cos_all.begin(), cos_all.end() - 1));
  lm.distance = -1;
  for (size_t k = 0; k + 1 < cos_all.size(); ++k) {
    const double d = std::fabs(cos_all[k] - median);
    if (d > lm.distance) {
      lm.distance = d;
      lm.slot = slots[k];
    }
  }
  lm.candidate_distance = std::fabs(cos_all.back() - median);
  return lm;
}

void AngleMidStreamBuffer::offer(size_t row, int label, Rng& rng) {
  ++seen_;
  if (std::find(seen_classes_.begin(), seen_classes_.end(), label) == seen_classes_.end())
    seen_classes_.push_back(label);
  if (capacity_ == 0) return;
  if (rows_.size() < capacity_) {
    rows_.push_back(row);
    labels_.push_back(label);
    return;
  }
  const size_t quota = capacity_ / seen_classes_.size();
  auto count = [&](int c) { return static_cast<size_t>(std::count(labels_.begin(), labels_.end(), c)); };
  if (count(label) < quota) {
    // Most over-quota class (ties: the smallest label).
    int worst = labels_[0];
    long worst_excess = -1;
    for (int c : seen_classes_) {
      const long excess = static_cast<long>(count(c)) - static_cast<long>(quota);
      if (excess > worst_excess || (excess == worst_excess && c < worst)) {
        worst_excess = excess;
        worst = c;
      }
    }
    const LeastMid lm = least_mid(worst, row);
    rows_[lm.slot] = row;
    labels_[lm.slot] = label;
    return;
  }
  const LeastMid own = least_mid(label, row);
  if (count(label) > 0 && own.candidate_distance < own.distance) {
    rows_[own.slot] = row;
    return;
  }
  const auto j = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(seen_) - 1));
  if (j < capacity_) {
    rows_[j] = row;
    labels_[j] = label;
  }
}

std::vector<size_t> AngleMidStreamStrategy::select(const learn::Matrix& features, const std::vector<int>& labels,
                                                   size_t budget, Rng& rng) const {
  AngleMidStreamBuffer buffer(features, budget);
  for (size_t i = 0; i < labels.size(); ++i) buffer.offer(i, labels[i], rng);
  return buffer.rows();
}

}  // namespace dmlkit::continual
