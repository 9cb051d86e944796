// Optimus' speed model fitting; see speed_fit.h.
#include "cluster/policies/optimus/speed_fit.h"

#include "cluster/policies/optimus/nnls.h"

namespace dmlkit::cluster {

void SpeedFit::add(int p, int w, double samples_per_s) {
  if (p < 1 || w < 1 || !(samples_per_s > 0)) return;
  Sum& s = points_[{p, w}];
  s.total += samples_per_s;
  s.count += 1;
}

void SpeedFit::merge(const SpeedFit& other) {
  for (const auto& [key, s] : other.points_) add(key.first, key.second, s.total / s.count);
}

bool SpeedFit::fit() {
  const bool sync = mode_ == PsTrainingMode::Sync;
  const int cols = sync ? 5 : 4;
  const int n = distinct_points();
  ready_ = false;
  if (n < cols) return false;
  Eigen::MatrixXd a(n, cols);
  Eigen::VectorXd b(n);
  int i = 0;
  for (const auto& [key, s] : points_) {
    const double p = key.first, w = key.second, y = s.total / s.count;
    const double f = y / batch_;  // steps/s
    if (sync) {
      a.row(i) << batch_ / w, 1.0, w / p, w, p;
      b(i) = 1.0 / f;
    } else {
      a.row(i) << 1.0, w / p, w, p;
      b(i) = w / f;
    }
    ++i;
  }
  const Eigen::VectorXd theta = nnls(a, b);
  for (int k = 0; k < 5; ++k) theta_[k] = k < cols ? theta(k) : 0.0;
  ready_ = true;
  return true;
}

double SpeedFit::predict(int p, int w) const {
  if (p < 1 || w < 1) return 0.0;
  if (auto it = points_.find({p, w}); it != points_.end()) return it->second.total / it->second.count;
  if (!ready_) return 0.0;
  const double pd = p, wd = w;
  if (mode_ == PsTrainingMode::Sync) {
    const double inv = theta_[0] * batch_ / wd + theta_[1] + theta_[2] * wd / pd + theta_[3] * wd + theta_[4] * pd;
    return inv > 0 ? batch_ / inv : 0.0;
  }
  const double per = theta_[0] + theta_[1] * wd / pd + theta_[2] * wd + theta_[3] * pd;
  return per > 0 ? wd * batch_ / per : 0.0;
}

}  // namespace dmlkit::cluster
