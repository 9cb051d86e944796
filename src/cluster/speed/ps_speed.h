// Ground-truth speed of parameter-server jobs (spec cluster-schedulers.md 1.4), three
// interchangeable models behind one interface:
//   table    (a) the 804 measured MXNet points (DL2's config_speed.txt) interpolated per model by a
//                radial basis function with linear kernel, as DL2 does, the 10 failed points dropped;
//   table-dl2    the same with every point kept, failed ones included, as the DL2 authors' speed.py
//                fits it (their simulator's ground truth; docs/dl2.md);
//   formula  (b) Optimus' synchronous speed model with the coefficients fitted to those points;
//   analytic (c) DL2's placement-aware analytic model (per-worker step time from compute, model
//                size and intra/inter-server bandwidth).
// Speeds are total samples per second (DL2 units: an epoch is epoch_size samples).
// `comm_scale` multiplies the communication part of a step (PS load imbalance relative to the
// MXNet default assignment the measurements were taken with; 1 = as measured).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

class PsSpeedModel {
 public:
  virtual ~PsSpeedModel() = default;
  virtual const char* name() const = 0;
  // Throughput with p PSs and w workers. `placement` (may be null) is used by placement-aware
  // models; null means the balanced placement on the fewest servers of 4 tasks each [A].
  virtual double samples_per_s(const PsJobSpec& job, int p, int w, const Placement* placement,
                               double comm_scale = 1.0) const = 0;
  virtual bool placement_aware() const { return false; }
};

// Optimus' formulas with the type's fitted theta (spec 1.4(b)); steps/s times the global batch.
// Async jobs: w / (theta0 M + theta1 + theta2 w/p + theta3 w + theta4 p) steps/s, each worker
// processing a batch of M [A].
double formula_samples_per_s(const PsJobSpec& job, int p, int w, double comm_scale = 1.0);

class TableSpeedModel final : public PsSpeedModel {
 public:
  // Reads the measurement CSV (model,sync_mode,global_batch,num_ps,num_workers,total_samples_per_s);
  // throws Error naming file/line/column on a missing column or bad value. keep_failed: fit every
  // point, the failed runs included (DL2's speed.py; "table-dl2"), instead of dropping them.
  explicit TableSpeedModel(const std::string& csv_path, bool keep_failed = false);
  const char* name() const override { return keep_failed_ ? "table-dl2" : "table"; }
  double samples_per_s(const PsJobSpec& job, int p, int w, const Placement* placement,
                       double comm_scale = 1.0) const override;
  // Interpolated value for a type at real (p, w) (no clamping, no caching).
  double interpolate(int type, double p, double w) const;
  int points(int type) const { return static_cast<int>(models_[type].p.size()); }
  int dropped_points() const { return dropped_; }

 private:
  struct Rbf {
    std::vector<double> p, w, lambda;
    std::vector<double> grid;  // cached values at integer (p, w) in [1, kGrid]^2
  };
  static constexpr int kGrid = 64;
  std::vector<Rbf> models_;  // by type index
  int dropped_ = 0;
  bool keep_failed_ = false;
};

class FormulaSpeedModel final : public PsSpeedModel {
 public:
  const char* name() const override { return "formula"; }
  double samples_per_s(const PsJobSpec& job, int p, int w, const Placement* placement,
                       double comm_scale = 1.0) const override {
    return formula_samples_per_s(job, p, w, comm_scale);
  }
};

class AnalyticSpeedModel final : public PsSpeedModel {
 public:
  const char* name() const override { return "analytic"; }
  double samples_per_s(const PsJobSpec& job, int p, int w, const Placement* placement,
                       double comm_scale = 1.0) const override;
  bool placement_aware() const override { return true; }
};

// "table" or "table-dl2" (need data_dir/dl2-measurements/ps_worker_speed.csv), "formula" or
// "analytic"; throws Error for another name.
std::shared_ptr<const PsSpeedModel> make_ps_speed_model(const std::string& name, const std::string& data_dir);

}  // namespace dmlkit::cluster
