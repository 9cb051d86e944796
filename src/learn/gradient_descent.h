// Gradient descent for the patch CNN: full-batch (the theory's setting) or shuffled mini-batches,
// with an optional quadratic penalty (lambda/2) * sum_k F_k (w_k - w*_k)^2 -- EWC when F is the
// Fisher diagonal of an earlier task and w* its trained weights. The penalty enters each step in
// one of two ways (QuadraticPenalty::step):
//   gradient  w <- w - lr * (grad(data loss) + lambda F (w - w*)): plain gradient descent on
//             loss + penalty, the official code's update (synthetic/cl_cnn_replay_ewc.py: ewc_loss,
//             lines 96-109, added to the cross-entropy and stepped by torch.optim.SGD, lines
//             175-179). It diverges once lr * lambda * F > 2 for some weight.
//   proximal  [A] w <- (v + lr*lambda*F*w*) / (1 + lr*lambda*F), v = w - lr * grad(data loss): the
//             exact proximal step on the quadratic, same fixed points, stable for any lr*lambda*F.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "core/rng.h"
#include "learn/patch_cnn.h"

namespace dmlkit::learn {

enum class PenaltyStep { gradient, proximal };
// "gradient" or "proximal"; parse_penalty_step throws dmlkit::Error("", 0, "ewc_step", ...).
PenaltyStep parse_penalty_step(const std::string& name);
std::string penalty_step_name(PenaltyStep step);

struct QuadraticPenalty {
  Matrix anchor;     // w*
  Matrix precision;  // F (same shape as the weights)
  double lambda = 0.0;
  PenaltyStep step = PenaltyStep::gradient;
  double value(const Matrix& w) const;
  // lambda * F as the float both backends add to the gradient (gradient step).
  Matrix scaled_precision() const;
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
