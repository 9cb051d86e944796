// Small-, mid- and large-angle selection of "Angle Matters" (spec B.7; see strategies.h).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::string AngleStrategy::name() const {
  switch (mode_) {
    case AngleMode::small: return "small-angle";
    case AngleMode::mid: return "mid-angle";
    case AngleMode::large: return "large-angle";
  }
  return "?";
}

std::vector<size_t> AngleStrategy::select(const learn::Matrix& features, const std::vector<int>& labels,
                                          size_t budget, Rng&) const {
  const auto classes = indices_by_class(labels);
  std::vector<size_t> out;
  if (classes.empty()) return out;
  const size_t k = budget / classes.size();
  for (const auto& [label, idx] : classes) {
    const std::vector<double> cos = cosines_to_prototype(features, idx);
    std::vector<double> key(cos.size());
    if (mode_ == AngleMode::mid) {
      const double median = lower_median(cos);
      for (size_t i = 0; i < cos.size(); ++i) key[i] = std::fabs(cos[i] - median);
    } else {
      for (size_t i = 0; i < cos.size(); ++i) key[i] = mode_ == AngleMode::small ? -cos[i] : cos[i];
    }
    std::vector<size_t> order(idx.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
    const size_t take = std::min(k, order.size());
    for (size_t t = 0; t < take; ++t) out.push_back(idx[order[t]]);
  }
  return out;
}

}  // namespace dmlkit::continual
