// Non-negative least squares: min |A x - b|_2 subject to x >= 0, by the active-set method of
// Lawson and Hanson ("Solving Least Squares Problems", 1974, chapter 23). Used by Optimus' online
// speed and convergence models; sized for a handful of unknowns.
#pragma once
#include <Eigen/Dense>

namespace dmlkit::cluster {

// Returns the solution; `iterations` caps the outer loop (3 x columns is ample in practice).
Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations = 0);

}  // namespace dmlkit::cluster
