// Class-balanced random selection: k = budget / classes uniform rows per class.
#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::vector<size_t> ClassBalancedStrategy::select(const learn::Matrix&, const std::vector<int>& labels, size_t budget,
                                                  Rng& rng) const {
  return select_per_class(labels, budget, [&](std::vector<size_t> rows, size_t k) {
    rows.resize(rng.sample_prefix(rows.begin(), rows.end(), k));
    return rows;
  });
}

}  // namespace dmlkit::continual
