// Supervised MLP regression; see regression.h.
#include "learn/regression.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "core/error.h"
#include "learn/mlp_trainer.h"

namespace dmlkit::learn {

void RegressionData::add(const float* xi, const float* yi, const float* wi) {
  x.insert(x.end(), xi, xi + inputs);
  y.insert(y.end(), yi, yi + outputs);
  w.insert(w.end(), wi, wi + outputs);
}

RegressionError regression_error(MlpForward& net, const RegressionData& d, const std::vector<size_t>& rows) {
  return regression_error([&net](const float* x) -> const std::vector<float>& { return net.run(x); }, d, rows);
}

RegressionError regression_error(const RowPredictor& predict, const RegressionData& d, const std::vector<size_t>& rows) {
  RegressionError e;
  double wsum = 0;
  for (size_t r : rows) {
    const std::vector<float>& out = predict(d.x.data() + r * d.inputs);
    for (int o = 0; o < d.outputs; ++o) {
      const double w = d.w[r * d.outputs + o];
      if (w <= 0) continue;
      const double y = d.y[r * d.outputs + o], err = out[o] - y;
      e.mse += w * err * err;
      e.mae += w * std::abs(err);
      wsum += w;
      e.mean_rel_err += std::abs(err) / std::max(std::abs(y), 1e-9);
      ++e.outputs_counted;
    }
  }
  if (wsum > 0) {
    e.mse /= wsum;
    e.mae /= wsum;
  }
  if (e.outputs_counted > 0) e.mean_rel_err /= static_cast<double>(e.outputs_counted);
  return e;
}

RegressionTrainer::RegressionTrainer(const MlpShape& shape, const std::vector<float>& parameters, double lr)
    : shape_(shape), engine_(make_mlp_trainer(shape, parameters, lr)) {}

double RegressionTrainer::epoch(const RegressionData& d, std::vector<size_t> rows, int batch, Rng& rng) {
  return regression_epoch(*engine_, d, std::move(rows), batch, rng);
}

double regression_epoch(MlpTrainerEngine& engine, const RegressionData& d, std::vector<size_t> rows, int batch, Rng& rng) {
  if (rows.empty()) return 0;
  rng.shuffle(rows.begin(), rows.end());
  std::vector<float> bx, by, bw;
  double loss = 0;
  int batches = 0;
  for (size_t at = 0; at < rows.size(); at += static_cast<size_t>(batch)) {
    const size_t n = std::min(rows.size() - at, static_cast<size_t>(batch));
    bx.resize(n * d.inputs);
    by.resize(n * d.outputs);
    bw.resize(n * d.outputs);
    for (size_t k = 0; k < n; ++k) {
      const size_t r = rows[at + k];
      std::copy_n(d.x.begin() + static_cast<long>(r * d.inputs), d.inputs, bx.begin() + static_cast<long>(k * d.inputs));
      std::copy_n(d.y.begin() + static_cast<long>(r * d.outputs), d.outputs, by.begin() + static_cast<long>(k * d.outputs));
      std::copy_n(d.w.begin() + static_cast<long>(r * d.outputs), d.outputs, bw.begin() + static_cast<long>(k * d.outputs));
    }
    loss += engine.add_regression_gradient(bx.data(), static_cast<int>(n), by.data(), bw.data()).loss;
    engine.step(1);
    ++batches;
  }
  return loss / std::max(1, batches);
}

RegressionFit fit_regression(const MlpShape& shape, const std::vector<float>& initial, const RegressionData& d,
                             const RegressionConfig& c, const std::function<void(int, double)>& on_epoch) {
  shape.validate();
  if (d.inputs != shape.inputs || d.outputs != shape.outputs)
    throw Error("", 0, "regression", "data of " + std::to_string(d.inputs) + " inputs and " +
                                         std::to_string(d.outputs) + " outputs for a network of " +
                                         std::to_string(shape.inputs) + " and " + std::to_string(shape.outputs));
  auto engine = make_mlp_trainer(shape, initial, c.lr);
  auto predictor = [&shape](const std::vector<float>& p) -> RowPredictor {
    auto net = std::make_shared<MlpForward>(shape, p);
    return [net](const float* x) -> const std::vector<float>& { return net->run(x); };
  };
  return fit_regression_engine(*engine, predictor, d, c, on_epoch);
}

RegressionFit fit_regression_engine(MlpTrainerEngine& engine,
                                    const std::function<RowPredictor(const std::vector<float>&)>& predictor,
                                    const RegressionData& d, const RegressionConfig& c,
                                    const std::function<void(int, double)>& on_epoch) {
  if (d.rows() == 0) throw Error("", 0, "regression", "no samples to fit");
  if (!(c.holdout >= 0 && c.holdout < 1) || c.epochs < 0 || c.batch < 1 || !(c.lr > 0))
    throw Error("", 0, "regression", "hold-out must be in [0, 1), epochs >= 0, batch >= 1, lr > 0");
  Rng rng = Rng(c.seed).split(0x7e6);
  std::vector<size_t> all(d.rows());
  std::iota(all.begin(), all.end(), 0);
  rng.shuffle(all.begin(), all.end());
  size_t hold = static_cast<size_t>(std::floor(c.holdout * static_cast<double>(all.size())));
  if (hold >= all.size()) hold = all.size() - 1;
  RegressionFit fit;
  fit.holdout_rows.assign(all.begin(), all.begin() + static_cast<long>(hold));
  fit.train_rows.assign(all.begin() + static_cast<long>(hold), all.end());
  std::sort(fit.holdout_rows.begin(), fit.holdout_rows.end());
  std::sort(fit.train_rows.begin(), fit.train_rows.end());
  for (int e = 0; e < c.epochs; ++e) {
    regression_epoch(engine, d, fit.train_rows, c.batch, rng);
    const double mse =
        regression_error(predictor(engine.parameters()), d, fit.holdout_rows.empty() ? fit.train_rows : fit.holdout_rows).mse;
    fit.holdout_mse_curve.push_back(mse);
    if (on_epoch) on_epoch(e + 1, mse);
  }
  fit.parameters = engine.parameters();
  const RowPredictor net = predictor(fit.parameters);
  fit.train = regression_error(net, d, fit.train_rows);
  fit.holdout = regression_error(net, d, fit.holdout_rows);
  return fit;
}

}  // namespace dmlkit::learn
