// The three ground-truth speed models of PS jobs; see ps_speed.h and docs/optimus.md.
//
// Table model: per job type, a radial basis function with linear kernel through the measured
// points x_i = (p_i, w_i): solve Phi lambda = y with Phi_ik = |x_i - x_k| (no polynomial term, no
// smoothing, as scipy's Rbf(function='linear') used by DL2), then speed(x) = sum_i lambda_i |x - x_i|,
// clamped at 0 [A]. Dropped before the fit [A]: the 9 zero points (failed runs) and vgg-16 at
// (p=1, w=11) (0.48 samples/s, failed workers); "table-dl2" keeps them, as the DL2 authors'
// speed.py (fit) does, which changes vgg-16 and inception-bn near those points (vgg-16 with 16 PSs
// and 16 workers: 12.9 instead of 12.0 samples/s). Async jobs have no measurements: the table model
// answers them with the formula model [A]. comm_scale rescales a table value by the ratio of the
// formula model's step times with and without it [A].
#include "cluster/speed/ps_speed.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/csv.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

double sync_step_s(const PsJobType& t, double p, double w, double comm_scale) {
  return t.theta[0] * t.global_batch / w + t.theta[1] + t.theta[2] * (w / p) * comm_scale + t.theta[3] * w +
         t.theta[4] * p;
}

bool failed_point(const std::string& model, long p, long w, double speed) {
  return speed <= 0 || (model == "vgg-16" && p == 1 && w == 11);
}

}  // namespace

double formula_samples_per_s(const PsJobSpec& job, int p, int w, double comm_scale) {
  if (p <= 0 || w <= 0) return 0.0;
  const PsJobType& t = job.job_type();
  if (job.mode == PsTrainingMode::Async) {
    const double per_worker_s = t.theta[0] * t.global_batch + t.theta[1] + t.theta[2] * (double(w) / p) * comm_scale +
                                t.theta[3] * w + t.theta[4] * p;
    return per_worker_s > 0 ? w * t.global_batch / per_worker_s : 0.0;
  }
  const double step_s = sync_step_s(t, p, w, comm_scale);
  return step_s > 0 ? t.global_batch / step_s : 0.0;
}

TableSpeedModel::TableSpeedModel(const std::string& csv_path, bool keep_failed) : keep_failed_(keep_failed) {
  const CsvTable t = CsvTable::read(csv_path);
  const int c_model = t.column("model"), c_mode = t.column("sync_mode"), c_batch = t.column("global_batch");
  const int c_p = t.column("num_ps"), c_w = t.column("num_workers"), c_y = t.column("total_samples_per_s");
  const auto& types = ps_job_types();
  models_.assign(types.size(), Rbf{});
  for (size_t r = 0; r < t.rows(); ++r) {
    const std::string model(t.str(r, c_model));
    const int type = find_ps_job_type(model);
    if (type < 0) t.fail(r, c_model, "unknown model '" + model + "'");
    if (t.str(r, c_mode) != "dist_sync") t.fail(r, c_mode, "only dist_sync measurements are supported");
    const long batch = t.integer(r, c_batch);
    if (batch != types[type].global_batch)
      t.fail(r, c_batch,
             "global batch " + std::to_string(batch) + " differs from the type's " +
                 std::to_string(types[type].global_batch));
    const long p = t.integer(r, c_p), w = t.integer(r, c_w);
    if (p < 1) t.fail(r, c_p, "must be at least 1");
    if (w < 1) t.fail(r, c_w, "must be at least 1");
    const double y = t.num(r, c_y);
    if (y < 0) t.fail(r, c_y, "negative speed");
    if (!keep_failed_ && failed_point(model, p, w, y)) {
      ++dropped_;
      continue;
    }
    Rbf& m = models_[type];
    for (size_t i = 0; i < m.p.size(); ++i)
      if (m.p[i] == p && m.w[i] == w) t.fail(r, c_p, "duplicate (num_ps, num_workers) for " + model);
    m.p.push_back(static_cast<double>(p));
    m.w.push_back(static_cast<double>(w));
    m.lambda.push_back(y);  // values for now, weights after the solve
  }
  for (size_t type = 0; type < models_.size(); ++type) {
    Rbf& m = models_[type];
    const int n = static_cast<int>(m.p.size());
    if (n == 0) throw Error(csv_path, 0, "model", "no measurement for model '" + types[type].name + "'");
    Eigen::MatrixXd phi(n, n);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
      y(i) = m.lambda[i];
      for (int k = 0; k < n; ++k) phi(i, k) = std::hypot(m.p[i] - m.p[k], m.w[i] - m.w[k]);
    }
    const Eigen::VectorXd lambda = phi.colPivHouseholderQr().solve(y);
    for (int i = 0; i < n; ++i) m.lambda[i] = lambda(i);
    m.grid.resize(static_cast<size_t>(kGrid) * kGrid);
    for (int p = 1; p <= kGrid; ++p)
      for (int w = 1; w <= kGrid; ++w)
        m.grid[(p - 1) * kGrid + (w - 1)] = std::max(0.0, interpolate(static_cast<int>(type), p, w));
  }
}

double TableSpeedModel::interpolate(int type, double p, double w) const {
  const Rbf& m = models_[type];
  double s = 0;
  for (size_t i = 0; i < m.p.size(); ++i) s += m.lambda[i] * std::hypot(p - m.p[i], w - m.w[i]);
  return s;
}

double TableSpeedModel::samples_per_s(const PsJobSpec& job, int p, int w, const Placement* placement,
                                      double comm_scale) const {
  if (p <= 0 || w <= 0) return 0.0;
  if (job.mode == PsTrainingMode::Async) return formula_samples_per_s(job, p, w, comm_scale);
  const Rbf& m = models_[job.type];
  double v =
      (p <= kGrid && w <= kGrid) ? m.grid[(p - 1) * kGrid + (w - 1)] : std::max(0.0, interpolate(job.type, p, w));
  if (comm_scale != 1.0) {
    const PsJobType& t = job.job_type();
    v *= sync_step_s(t, p, w, 1.0) / sync_step_s(t, p, w, comm_scale);
  }
  return v;
}

double AnalyticSpeedModel::samples_per_s(const PsJobSpec& job, int p, int w, const Placement* placement,
                                         double comm_scale) const {
  if (p <= 0 || w <= 0) return 0.0;
  // Per-server task counts: the placement's, or the balanced one on ceil((p+w)/4) servers.
  int ps_on[256], wk_on[256];
  int n = 0;
  if (placement != nullptr && !placement->empty()) {
    for (const Slice& s : *placement) {
      if (n == 256) break;
      ps_on[n] = s.ps;
      wk_on[n] = s.workers;
      ++n;
    }
  } else {
    n = std::min(256, (p + w + 3) / 4);
    for (int i = 0; i < n; ++i) ps_on[i] = wk_on[i] = 0;
    for (int i = 0; i < p; ++i) ++ps_on[i % n];
    for (int i = 0; i < w; ++i) ++wk_on[i % n];
  }
  const PsJobType& t = job.job_type();
  const double inf = std::numeric_limits<double>::infinity();
  int min_wk_on_ps_server = std::numeric_limits<int>::max();
  for (int i = 0; i < n; ++i)
    if (ps_on[i] > 0) min_wk_on_ps_server = std::min(min_wk_on_ps_server, wk_on[i]);
  const double shard_mb = t.model_mb / p;
  double max_step_s = 0, rate_async = 0;
  for (int i = 0; i < n; ++i) {
    if (wk_on[i] == 0) continue;
    const double intra_eff = t.intra_bw_MBps / std::max(ps_on[i], wk_on[i]);
    double worker_side, ps_side;
    if (ps_on[i] == p) {
      worker_side = ps_side = t.inter_bw_MBps;
    } else {
      worker_side = t.inter_bw_MBps / (p - ps_on[i]);
      const int remote = w - min_wk_on_ps_server;
      ps_side = remote > 0 ? t.inter_bw_MBps / remote : inf;
    }
    const double inter_s = 2 * shard_mb / std::min(worker_side, ps_side);
    const double intra_s = 2 * shard_mb / intra_eff;
    const double step_s = t.local_compute_s + std::max(inter_s, intra_s) * comm_scale;
    max_step_s = std::max(max_step_s, step_s);
    rate_async += wk_on[i] / step_s;
  }
  if (job.mode == PsTrainingMode::Async) return rate_async;
  return max_step_s > 0 ? w / max_step_s : 0.0;
}

std::shared_ptr<const PsSpeedModel> make_ps_speed_model(const std::string& name, const std::string& data_dir) {
  if (name == "table" || name == "table-dl2")
    return std::make_shared<TableSpeedModel>(data_dir + "/dl2-measurements/ps_worker_speed.csv", name == "table-dl2");
  if (name == "formula") return std::make_shared<FormulaSpeedModel>();
  if (name == "analytic") return std::make_shared<AnalyticSpeedModel>();
  throw Error("unknown PS speed model '" + name + "' (known: table, table-dl2, formula, analytic)");
}

}  // namespace dmlkit::cluster
