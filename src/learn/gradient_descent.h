// Gradient descent for the patch CNN: full-batch (the theory's setting) or shuffled mini-batches,
// with an optional quadratic penalty (lambda/2) * sum_k F_k (w_k - w*_k)^2 -- EWC when F is the
// Fisher diagonal of an earlier task and w* its trained weights.
// [A] The penalty is applied by its exact proximal step after the data-gradient step,
//   w <- (v + lr*lambda*F*w*) / (1 + lr*lambda*F),  v = w - lr * grad(data loss),
// which has the same fixed points as plain gradient descent on loss + penalty but stays stable for
// any lr*lambda*F; the explicit step diverges once lr*lambda*F > 2, which the paper's lambda = 1e6
// with lr = 0.01 reaches on this model (measured: every EWC run diverged).
#pragma once
#include <cstddef>
#include <optional>

#include "core/rng.h"
#include "learn/patch_cnn.h"

namespace dmlkit::learn {

struct QuadraticPenalty {
  Matrix anchor;     // w*
  Matrix precision;  // F (same shape as the weights)
  double lambda = 0.0;
  double value(const Matrix& w) const;
};

struct GdConfig {
  double learning_rate = 0.01;
  int epochs = 3000;
  size_t batch_size = 0;  // 0: full batch; otherwise shuffled mini-batches (the last may be short)
};

struct GdResult {
  double final_loss = 0.0;  // data loss (without penalty) on the whole set after the last step
  bool diverged = false;    // a non-finite loss or weight stopped training early
  int epochs_run = 0;
};

// Trains `net` in place. `rng` shuffles mini-batches (unused for full batch).
GdResult train_gradient_descent(PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                                const QuadraticPenalty* penalty, Rng& rng);

}  // namespace dmlkit::learn
