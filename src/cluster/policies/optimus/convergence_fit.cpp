// Optimus' convergence model fitting; see convergence_fit.h.
#include "cluster/policies/optimus/convergence_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cluster/policies/optimus/nnls.h"

namespace dmlkit::cluster {

namespace {

double segment_weight(size_t i, size_t n) {
  const size_t seg = std::min<size_t>(2, i * 3 / n);
  return seg == 0 ? 1.0 : seg == 1 ? 16.0 : 256.0;
}

// Best (beta0, beta1) for a fixed beta2; returns the weighted squared error (inf if infeasible).
double fit_given_floor(std::span<const double> l, double beta2, LossFit& out) {
  const size_t n = l.size();
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (size_t i = 0; i < n; ++i) {
    const double excess = l[i] - beta2;
    if (!(excess > 0)) return std::numeric_limits<double>::infinity();
    const double sw = std::sqrt(segment_weight(i, n)) * excess * excess;  // sqrt of w (l - b2)^4
    a(i, 0) = sw * static_cast<double>(i + 1);
    a(i, 1) = sw;
    b(i) = sw / excess;
  }
  const Eigen::VectorXd x = nnls(a, b);
  LossFit f;
  f.ok = true;
  f.beta0 = x(0);
  f.beta1 = x(1);
  f.beta2 = beta2;
  double sse = 0;
  for (size_t i = 0; i < n; ++i) {
    const double den = f.beta0 * (i + 1) + f.beta1;
    if (!(den > 0)) return std::numeric_limits<double>::infinity();
    const double r = l[i] - f(static_cast<double>(i + 1));
    sse += segment_weight(i, n) * r * r;
  }
  out = f;
  return sse;
}

}  // namespace

LossFit fit_loss_curve(std::span<const double> losses) {
  LossFit best;
  if (losses.size() < 3) return best;
  const double lo = *std::min_element(losses.begin(), losses.end());
  if (!(lo > 0)) return best;
  constexpr int kGrid = 40;
  double best_sse = std::numeric_limits<double>::infinity();
  double best_b2 = 0;
  for (int g = 0; g < kGrid; ++g) {
    const double b2 = lo * g / kGrid;
    LossFit f;
    const double sse = fit_given_floor(losses, b2, f);
    if (sse < best_sse) {
      best_sse = sse;
      best_b2 = b2;
      best = f;
    }
  }
  if (!best.ok) return best;
  // Golden-section refinement of beta2 around the best grid point.
  double a = std::max(0.0, best_b2 - lo / kGrid), b = std::min(lo * (1 - 1e-9), best_b2 + lo / kGrid);
  const double phi = 0.6180339887498949;
  for (int it = 0; it < 30 && b - a > 1e-12; ++it) {
    const double c = b - phi * (b - a), d = a + phi * (b - a);
    LossFit fc, fd;
    const double sc = fit_given_floor(losses, c, fc), sd = fit_given_floor(losses, d, fd);
    if (sc < best_sse) {
      best_sse = sc;
      best = fc;
    }
    if (sd < best_sse) {
      best_sse = sd;
      best = fd;
    }
    if (sc < sd)
      b = d;
    else
      a = c;
  }
  return best;
}

int convergence_evaluation(const LossFit& fit, int observed, double threshold, int max_evals) {
  if (!fit.ok) return -1;
  for (int e = std::max(9, observed - 10); e <= max_evals; ++e) {
    // The fitted curve decreases, so the largest drop over the window is l(e - 9) - l(e).
    bool flat = true;
    for (int i = 1; i <= 9 && flat; ++i)
      if (fit(e - i) - fit(e) > threshold) flat = false;
    if (flat) return e;
  }
  return -1;
}

}  // namespace dmlkit::cluster
