// Optimus' online convergence model (Peng et al., EuroSys'18; section 2.2 of
// specs/cluster-schedulers.md): fit l(k) = 1/(beta0 k + beta1) + beta2 (beta >= 0) to the
// validation losses seen so far with recency weighting (the points split into three equal
// consecutive segments weighted 1, 16, 256), then find the convergence evaluation: from
// e = max(9, n - 10), the first e with l(e - i) - l(e) <= threshold for i = 0..9, giving up past
// `max_evals` (100 in the prototype).
//
// Solver [A]: the prototype uses bounded non-linear least squares; we search beta2 over a grid on
// [0, min loss) refined by golden section, and for each beta2 fit (beta0, beta1) by NNLS on the
// linearised 1/(l - beta2) = beta0 k + beta1 with delta-method weights w (l - beta2)^4, scoring
// every candidate by the true weighted squared error of the loss.
#pragma once
#include <span>

namespace dmlkit::cluster {

struct LossFit {
  bool ok = false;
  double beta0 = 0, beta1 = 0, beta2 = 0;
  double operator()(double k) const { return 1.0 / (beta0 * k + beta1) + beta2; }
};

// losses[i] is the loss at evaluation k = i + 1. Needs >= 3 points, else ok = false.
LossFit fit_loss_curve(std::span<const double> losses);
// The convergence evaluation of a fitted curve (>= 9), or -1 if none up to max_evals.
int convergence_evaluation(const LossFit& fit, int observed, double threshold = 0.05, int max_evals = 100);

}  // namespace dmlkit::cluster
