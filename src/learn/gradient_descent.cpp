// Full-batch and mini-batch gradient descent with an optional quadratic (EWC) penalty.
#include "learn/gradient_descent.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/error.h"

namespace dmlkit::learn {

PenaltyStep parse_penalty_step(const std::string& name) {
  if (name == "gradient") return PenaltyStep::gradient;
  if (name == "proximal") return PenaltyStep::proximal;
  throw Error("", 0, "ewc_step", "unknown EWC step '" + name + "' (expected gradient or proximal)");
}

std::string penalty_step_name(PenaltyStep step) { return step == PenaltyStep::gradient ? "gradient" : "proximal"; }

Matrix QuadraticPenalty::scaled_precision() const { return (precision.cast<double>() * lambda).cast<float>(); }

double QuadraticPenalty::value(const Matrix& w) const {
  return 0.5 * lambda * (precision.array() * (w - anchor).array().square()).cast<double>().sum();
}

GdResult train_gradient_descent(PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                                const QuadraticPenalty* penalty, Rng& rng) {
  if (config.epochs < 0 || !(config.learning_rate > 0)) throw std::invalid_argument("gradient descent: bad config");
  if (penalty &&
      (penalty->anchor.rows() != net.weights().rows() || penalty->anchor.cols() != net.weights().cols() ||
       penalty->precision.rows() != net.weights().rows() || penalty->precision.cols() != net.weights().cols()))
    throw std::invalid_argument("gradient descent: penalty shape differs from the weights");
  GdResult result;
  Matrix grad;
  const float lr = static_cast<float>(config.learning_rate);
  const bool full = config.batch_size == 0 || config.batch_size >= data.size();
  const bool use_penalty = penalty && penalty->lambda != 0.0;
  const Matrix lambda_f = use_penalty ? penalty->scaled_precision() : Matrix();
  std::vector<size_t> order(data.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto step = [&](const PatchDataset& batch) {
    const double loss = net.loss_and_grad(batch, &grad);
    if (use_penalty && penalty->step == PenaltyStep::gradient)
      grad.array() += lambda_f.array() * (net.weights() - penalty->anchor).array();
    net.weights() -= lr * grad;
    if (use_penalty && penalty->step == PenaltyStep::proximal) {
      // Proximal (implicit) step on the quadratic: w <- (v + lr*lambda*F*w*) / (1 + lr*lambda*F).
      const float c = lr * static_cast<float>(penalty->lambda);
      net.weights().array() = (net.weights().array() + c * penalty->precision.array() * penalty->anchor.array()) /
                              (1.0f + c * penalty->precision.array());
    }
    return std::isfinite(loss);
  };
  for (int e = 0; e < config.epochs; ++e) {
    bool ok = true;
    if (full) {
      ok = step(data);
    } else {
      rng.shuffle(order.begin(), order.end());  // deterministic for a given seed
      for (size_t start = 0; start < order.size() && ok; start += config.batch_size) {
        const size_t end = std::min(order.size(), start + config.batch_size);
        ok = step(data.subset(std::vector<size_t>(order.begin() + start, order.begin() + end)));
      }
    }
    result.epochs_run = e + 1;
    if (!ok || !net.weights().allFinite()) {
      result.diverged = true;
      break;
    }
  }
  result.final_loss = net.loss_and_grad(data, nullptr);
  if (!std::isfinite(result.final_loss)) result.diverged = true;
  return result;
}

}  // namespace dmlkit::learn
