// Random replay selection: a uniform subset of the pool (partial Fisher-Yates shuffle).
#include <numeric>

#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::vector<size_t> RandomStrategy::select(const learn::Matrix&, const std::vector<int>& labels, size_t budget,
                                           Rng& rng) const {
  std::vector<size_t> idx(labels.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  idx.resize(rng.sample_prefix(idx.begin(), idx.end(), budget));
  return idx;
}

}  // namespace dmlkit::continual
