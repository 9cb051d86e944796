// Lawson-Hanson NNLS; see nnls.h. The passive set P holds the free variables; each outer step moves
// the variable with the largest positive gradient into P, solves the unconstrained problem on P
// (QR), and while that solution has non-positive entries steps back along the segment and drops the
// variables that hit zero.
#include "cluster/policies/optimus/nnls.h"

#include <limits>
#include <vector>

namespace dmlkit::cluster {

namespace {

Eigen::VectorXd solve_on(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<bool>& passive) {
  const int n = static_cast<int>(a.cols());
  std::vector<int> idx;
  for (int j = 0; j < n; ++j)
    if (passive[j]) idx.push_back(j);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  if (idx.empty()) return z;
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(idx.size()));
  for (size_t k = 0; k < idx.size(); ++k) sub.col(static_cast<Eigen::Index>(k)) = a.col(idx[k]);
  const Eigen::VectorXd s = sub.colPivHouseholderQr().solve(b);
  for (size_t k = 0; k < idx.size(); ++k) z(idx[k]) = s(static_cast<Eigen::Index>(k));
  return z;
}

}  // namespace

Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations) {
  const int n = static_cast<int>(a.cols());
  if (max_iterations <= 0) max_iterations = 3 * n + 10;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(n, false);
  const double tol = 1e-12 * std::max(1.0, a.norm() * b.norm());
  for (int it = 0; it < max_iterations; ++it) {
    const Eigen::VectorXd grad = a.transpose() * (b - a * x);
    int best = -1;
    double best_g = tol;
    for (int j = 0; j < n; ++j)
      if (!passive[j] && grad(j) > best_g) {
        best_g = grad(j);
        best = j;
      }
    if (best < 0) break;
    passive[best] = true;
    for (int inner = 0; inner < 3 * n + 10; ++inner) {
      const Eigen::VectorXd z = solve_on(a, b, passive);
      bool feasible = true;
      for (int j = 0; j < n; ++j)
        if (passive[j] && z(j) <= 0) feasible = false;
      if (feasible) {
        x = z;
        break;
      }
      double alpha = std::numeric_limits<double>::infinity();
      for (int j = 0; j < n; ++j)
        if (passive[j] && z(j) <= 0) {
          const double d = x(j) - z(j);
          alpha = std::min(alpha, d > 0 ? x(j) / d : 0.0);
        }
      x += alpha * (z - x);
      for (int j = 0; j < n; ++j)
        if (passive[j] && x(j) <= 1e-15) {
          passive[j] = false;
          x(j) = 0;
        }
    }
  }
  for (int j = 0; j < n; ++j)
    if (x(j) < 0) x(j) = 0;
  return x;
}

}  // namespace dmlkit::cluster
