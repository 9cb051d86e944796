// Class-balanced random selection: k = budget / classes uniform rows per class.
#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::vector<size_t> ClassBalancedStrategy::select(const learn::Matrix&, const std::vector<int>& labels, size_t budget,
                                                  Rng& rng) const {
  auto classes = indices_by_class(labels);
  std::vector<size_t> out;
  if (classes.empty()) return out;
  const size_t k = budget / classes.size();
  for (auto& [label, idx] : classes) {
    const size_t take = std::min(k, idx.size());
    for (size_t i = 0; i < take; ++i)
      std::swap(idx[i], idx[i + static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(idx.size() - i) - 1))]);
    out.insert(out.end(), idx.begin(), idx.begin() + static_cast<long>(take));
  }
  return out;
}

}  // namespace dmlkit::continual
