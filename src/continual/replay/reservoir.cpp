// Reservoir sampling (algorithm R) over the pool taken as a stream in row order.
#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::vector<size_t> ReservoirStrategy::select(const learn::Matrix&, const std::vector<int>& labels, size_t budget,
                                              Rng& rng) const {
  std::vector<size_t> buffer;
  if (budget == 0) return buffer;
  for (size_t t = 0; t < labels.size(); ++t) {
    if (buffer.size() < budget) {
      buffer.push_back(t);
    } else {
      const auto j = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(t)));
      if (j < budget) buffer[j] = t;
    }
  }
  return buffer;
}

}  // namespace dmlkit::continual
