// Optimus' online resource-speed model (Peng et al., EuroSys'18, section 2.3 of
// specs/cluster-schedulers.md): from measured (PS, workers, samples/s) points, fit
//   sync:  1/f = theta0 M/w + theta1 + theta2 w/p + theta3 w + theta4 p
//   async: w/f = theta0 + theta1 w/p + theta2 w + theta3 p
// (f in steps/s, M the global batch) by NNLS on the linearised form. Repeated measurements of one
// (p, w) are averaged; a prediction at a measured (p, w) returns the measurement (as the prototype).
#pragma once
#include <map>
#include <utility>

#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

class SpeedFit {
 public:
  SpeedFit() = default;
  SpeedFit(PsTrainingMode mode, int global_batch) : mode_(mode), batch_(global_batch) {}
  void add(int p, int w, double samples_per_s);
  void merge(const SpeedFit& other);  // adds other's averaged points
  int distinct_points() const { return static_cast<int>(points_.size()); }
  bool has(int p, int w) const { return points_.count({p, w}) > 0; }
  // Fits if enough distinct points (5 sync, 4 async); returns whether the model is ready.
  bool fit();
  bool ready() const { return ready_; }
  // Predicted samples/s (0 if not ready or p, w < 1).
  double predict(int p, int w) const;
  const double* theta() const { return theta_; }

 private:
  struct Sum {
    double total = 0;
    int count = 0;
  };
  PsTrainingMode mode_ = PsTrainingMode::Sync;
  int batch_ = 1;
  std::map<std::pair<int, int>, Sum> points_;
  double theta_[5] = {0, 0, 0, 0, 0};
  bool ready_ = false;
};

}  // namespace dmlkit::cluster
