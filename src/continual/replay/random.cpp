// Random replay selection: a uniform subset of the pool (partial Fisher-Yates shuffle).
#include <numeric>

#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::vector<size_t> RandomStrategy::select(const learn::Matrix&, const std::vector<int>& labels, size_t budget,
                                           Rng& rng) const {
  std::vector<size_t> idx(labels.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  const size_t k = std::min(budget, idx.size());
  for (size_t i = 0; i < k; ++i)
    std::swap(idx[i], idx[i + static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(idx.size() - i) - 1))]);
  idx.resize(k);
  return idx;
}

}  // namespace dmlkit::continual
