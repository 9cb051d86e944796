// iCaRL herding selection per class on L2-normalised features (see strategies.h).
#include <limits>

#include "continual/replay/strategies.h"

namespace dmlkit::continual {

std::vector<size_t> HerdingStrategy::select(const learn::Matrix& features, const std::vector<int>& labels,
                                            size_t budget, Rng&) const {
  return select_per_class(labels, budget, [&](std::vector<size_t> idx, size_t k) {
    std::vector<size_t> out;
    const auto n = static_cast<Eigen::Index>(idx.size());
    Eigen::MatrixXd f(n, features.cols());
    for (Eigen::Index i = 0; i < n; ++i) {
      f.row(i) = features.row(static_cast<Eigen::Index>(idx[static_cast<size_t>(i)])).cast<double>();
      const double norm = f.row(i).norm();
      if (norm > 0) f.row(i) /= norm;
    }
    const Eigen::RowVectorXd mean = f.colwise().mean();
    Eigen::RowVectorXd chosen_sum = Eigen::RowVectorXd::Zero(f.cols());
    std::vector<bool> used(idx.size(), false);
    const size_t take = std::min(k, idx.size());
    for (size_t t = 0; t < take; ++t) {
      double best = std::numeric_limits<double>::infinity();
      Eigen::Index best_i = -1;
      for (Eigen::Index i = 0; i < n; ++i) {
        if (used[static_cast<size_t>(i)]) continue;
        const double d = (mean - (chosen_sum + f.row(i)) / static_cast<double>(t + 1)).squaredNorm();
        if (d < best) {
          best = d;
          best_i = i;
        }
      }
      used[static_cast<size_t>(best_i)] = true;
      chosen_sum += f.row(best_i);
      out.push_back(idx[static_cast<size_t>(best_i)]);
    }
    return out;
  });
}

}  // namespace dmlkit::continual
