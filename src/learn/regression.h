// Supervised regression of an MLP (learn/mlp.h) on (input, target, weight) rows, trained with
// libtorch (MlpTrainerEngine::add_regression_gradient: weighted mean squared error over the
// outputs, Adam): a seeded split into training and hold-out rows, shuffled mini-batches per epoch,
// and the hold-out error. Harmony's reward-prediction model (each job's speed from the placement)
// is fitted with it, and updated online with more epochs on new rows (RegressionTrainer).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "learn/mlp.h"
#include "learn/torch_plugin.h"

namespace dmlkit::learn {

struct RegressionData {
  int inputs = 0, outputs = 0;
  std::vector<float> x, y, w;  // rows x inputs, rows x outputs, rows x outputs (0: output unused)
  size_t rows() const { return inputs > 0 ? x.size() / static_cast<size_t>(inputs) : 0; }
  void add(const float* xi, const float* yi, const float* wi);
};

// Errors over the weighted outputs of some rows.
struct RegressionError {
  double mse = 0;             // sum w (pred - y)^2 / sum w
  double mae = 0;             // sum w |pred - y| / sum w
  double mean_rel_err = 0;    // mean over outputs with w > 0 of |pred - y| / max(|y|, 1e-9)
  size_t outputs_counted = 0;
};
RegressionError regression_error(MlpForward& net, const RegressionData& d, const std::vector<size_t>& rows);
// The same for any network: `predict(row)` returns its outputs (valid until the next call).
using RowPredictor = std::function<const std::vector<float>&(const float* row)>;
RegressionError regression_error(const RowPredictor& predict, const RegressionData& d, const std::vector<size_t>& rows);

struct RegressionConfig {
  int epochs = 60;
  int batch = 64;
  double lr = 1e-3;
  double holdout = 0.2;  // share of rows held out (0: none)
  uint64_t seed = 1;
};

struct RegressionFit {
  std::vector<float> parameters;
  std::vector<size_t> train_rows, holdout_rows;
  RegressionError train, holdout;
  std::vector<double> holdout_mse_curve;  // after each epoch (training MSE when no hold-out)
};

// Keeps an engine between calls (online updates continue Adam where it stopped).
class RegressionTrainer {
 public:
  RegressionTrainer(const MlpShape& shape, const std::vector<float>& parameters, double lr);
  // One pass over `rows` of d in a shuffled order, mini-batches of `batch`; returns the mean batch loss.
  double epoch(const RegressionData& d, std::vector<size_t> rows, int batch, Rng& rng);
  std::vector<float> parameters() const { return engine_->parameters(); }

 private:
  MlpShape shape_;
  std::unique_ptr<MlpTrainerEngine> engine_;
  std::vector<float> bx_, by_, bw_;
};

// One pass of `engine` over `rows` of d in a shuffled order, mini-batches of `batch`; returns the
// mean batch loss (RegressionTrainer::epoch for any network).
double regression_epoch(MlpTrainerEngine& engine, const RegressionData& d, std::vector<size_t> rows, int batch, Rng& rng);

// fit_regression for any network trained by `engine` (already holding the initial parameters):
// `predictor(parameters)` builds the forward pass the errors are measured with.
RegressionFit fit_regression_engine(MlpTrainerEngine& engine,
                                    const std::function<RowPredictor(const std::vector<float>&)>& predictor,
                                    const RegressionData& d, const RegressionConfig& c,
                                    const std::function<void(int, double)>& on_epoch = {});

// Fits from `initial` parameters; `on_epoch(epoch, holdout_mse)` may be empty. Throws Error on
// data that do not match the shape or hold no row.
RegressionFit fit_regression(const MlpShape& shape, const std::vector<float>& initial, const RegressionData& d,
                             const RegressionConfig& c, const std::function<void(int, double)>& on_epoch = {});

}  // namespace dmlkit::learn
