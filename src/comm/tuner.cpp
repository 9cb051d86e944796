// Gaussian-process Bayesian optimisation with expected improvement, and grid search (tuner.h).
#include "comm/tuner.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace dmlkit::comm {
namespace {

double from_unit(const TuneDimension& d, double u) {
  u = std::clamp(u, 0.0, 1.0);
  return d.log_scale ? std::exp(std::log(d.lo) + u * (std::log(d.hi) - std::log(d.lo))) : d.lo + u * (d.hi - d.lo);
}

double matern52(double r, double ls) {
  const double s = std::sqrt(5.0) * r / ls;
  return (1 + s + s * s / 3) * std::exp(-s);
}

struct Gp {
  Eigen::MatrixXd X;  // n x d, unit cube
  Eigen::VectorXd alpha;
  Eigen::LLT<Eigen::MatrixXd> llt;
  double ls = 0.3, mean = 0, scale = 1;

  static Eigen::MatrixXd kernel(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, double ls) {
    Eigen::MatrixXd K(A.rows(), B.rows());
    for (int i = 0; i < A.rows(); ++i)
      for (int j = 0; j < B.rows(); ++j) K(i, j) = matern52((A.row(i) - B.row(j)).norm(), ls);
    return K;
  }

  void fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y_raw) {
    X = x;
    mean = y_raw.mean();
    const double var = (y_raw.array() - mean).square().mean();
    scale = var > 0 ? std::sqrt(var) : 1.0;
    const Eigen::VectorXd y = (y_raw.array() - mean) / scale;
    double best_ll = -std::numeric_limits<double>::infinity();
    for (double cand : {0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 1.2}) {
      Eigen::MatrixXd K = kernel(X, X, cand);
      K.diagonal().array() += 1e-6;
      Eigen::LLT<Eigen::MatrixXd> l(K);
      if (l.info() != Eigen::Success) continue;
      Eigen::VectorXd a = l.solve(y);
      const double logdet = 2 * l.matrixL().toDenseMatrix().diagonal().array().log().sum();
      const double ll = -0.5 * y.dot(a) - 0.5 * logdet;
      if (ll > best_ll) best_ll = ll, ls = cand;
    }
    Eigen::MatrixXd K = kernel(X, X, ls);
    K.diagonal().array() += 1e-6;
    llt.compute(K);
    alpha = llt.solve(y);
  }

  // Standardised mean and standard deviation at one point.
  void predict(const Eigen::RowVectorXd& p, double& mu, double& sigma) const {
    Eigen::VectorXd k(X.rows());
    for (int i = 0; i < X.rows(); ++i) k(i) = matern52((X.row(i) - p).norm(), ls);
    mu = k.dot(alpha);
    const Eigen::VectorXd v = llt.matrixL().solve(k);
    sigma = std::sqrt(std::max(1e-12, 1.0 + 1e-6 - v.squaredNorm()));
  }
};

double expected_improvement(double mu, double sigma, double best, double xi) {
  const double imp = best - mu - xi;
  const double z = imp / sigma;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  return imp * cdf + sigma * pdf;
}

void check(const std::vector<TuneDimension>& dims) {
  if (dims.empty()) throw Error("", 0, "tune", "no dimension to tune");
  for (const auto& d : dims)
    if (!(d.lo < d.hi) || (d.log_scale && !(d.lo > 0))) throw Error("", 0, d.name, "bad search range");
}

size_t argmin(const std::vector<TuneProbe>& p) {
  size_t b = 0;
  for (size_t i = 1; i < p.size(); ++i)
    if (p[i].value < p[b].value) b = i;
  return b;
}

}  // namespace

TuneResult bayes_optimize(const std::vector<TuneDimension>& dims, const TuneObjective& f, const BayesOptions& o,
                          Rng rng) {
  check(dims);
  if (o.max_probes < 1 || o.initial_points < 1) throw Error("", 0, "probes", "must be >= 1");
  const int d = static_cast<int>(dims.size());
  TuneResult r;
  std::vector<Eigen::RowVectorXd> units;
  auto probe = [&](const Eigen::RowVectorXd& u) {
    std::vector<double> x(d);
    for (int k = 0; k < d; ++k) x[k] = from_unit(dims[k], u(k));
    units.push_back(u);
    r.probes.push_back({x, f(x)});
  };
  const int init = std::min(o.initial_points, o.max_probes);
  for (int i = 0; i < init; ++i) {
    Eigen::RowVectorXd u(d);
    for (int k = 0; k < d; ++k) u(k) = rng.uniform();
    probe(u);
  }
  while (static_cast<int>(r.probes.size()) < o.max_probes) {
    const int n = static_cast<int>(units.size());
    Eigen::MatrixXd X(n, d);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) X.row(i) = units[i], y(i) = r.probes[i].value;
    Gp gp;
    gp.fit(X, y);
    const size_t b = argmin(r.probes);
    const double best = (r.probes[b].value - gp.mean) / gp.scale;
    Eigen::RowVectorXd best_u = units[b], arg = best_u;
    double best_ei = -1;
    for (int c = 0; c < 2048 + 256; ++c) {
      Eigen::RowVectorXd u(d);
      for (int k = 0; k < d; ++k)
        u(k) = c < 2048 ? rng.uniform() : std::clamp(best_u(k) + rng.uniform(-0.05, 0.05), 0.0, 1.0);
      double mu, sigma;
      gp.predict(u, mu, sigma);
      const double ei = expected_improvement(mu, sigma, best, o.xi);
      if (ei > best_ei) best_ei = ei, arg = u;
    }
    probe(arg);
  }
  r.best = argmin(r.probes);
  return r;
}

TuneResult grid_search(const std::vector<TuneDimension>& dims, const TuneObjective& f, int points_per_dim) {
  check(dims);
  if (points_per_dim < 2) throw Error("", 0, "grid", "must be >= 2 points per dimension");
  const int d = static_cast<int>(dims.size());
  TuneResult r;
  std::vector<int> idx(d, 0);
  while (true) {
    std::vector<double> x(d);
    for (int k = 0; k < d; ++k) x[k] = from_unit(dims[k], idx[k] / double(points_per_dim - 1));
    r.probes.push_back({x, f(x)});
    int k = d - 1;
    while (k >= 0 && ++idx[k] == points_per_dim) idx[k--] = 0;
    if (k < 0) break;
  }
  r.best = argmin(r.probes);
  return r;
}

}  // namespace dmlkit::comm
