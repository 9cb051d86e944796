// Small-, mid- and large-angle selection of "Angle Matters" (spec B.7; see strategies.h).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::string AngleStrategy::name() const {
  switch (mode_) {
    case AngleMode::small:
      return "small-angle";
    case AngleMode::mid:
      return "mid-angle";
    case AngleMode::large:
      return "large-angle";
  }
  return "?";
}

std::vector<size_t> AngleStrategy::select(const learn::Matrix& features, const std::vector<int>& labels, size_t budget,
                                          Rng&) const {
  return select_per_class(labels, budget, [&](std::vector<size_t> idx, size_t k) {
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
    std::vector<size_t> chosen;
    for (size_t t = 0; t < std::min(k, order.size()); ++t) chosen.push_back(idx[order[t]]);
    return chosen;
  });
}

}  // namespace dmlkit::continual
