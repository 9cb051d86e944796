// Two-layer convolutional network over patches with polynomial ReLU, the model of Cao et al. (2022)
// used by "Angle Matters" (Wan et al., ICML 2025):
//   F_j(x) = scale * (1/P) * sum_p sum_{r in class j} sigma(<w_{j,r}, x^(p)>),  sigma(z) = max(0,z)^q
//   f(x)   = F_{+1}(x) - F_{-1}(x);  logistic loss log(1 + exp(-y f(x))) with y in {+1,-1}.
// Filters are shared over the P patches (a Conv1d with kernel = stride = patch length), there are
// m filters per class, no bias and no trained second layer (the official code's layout). With
// P = 1, m = 256 and scale = 1/256 it is also the "two linear maps + ReLU^3" MNIST head.
// Forward and backward are written by hand with Eigen: the network is tiny and the experiments run
// it millions of times, where a general autograd framework's per-operation overhead would dominate.
#pragma once
#include <string>
#include <vector>

#include "core/rng.h"
#include "learn/patch_dataset.h"

namespace dmlkit::learn {

// Which diagonal Fisher information an EWC penalty weighs the weights with (n samples, f_i the
// network output, y_i in {+1,-1} the label, p_i = sigmoid(f_i) = P(y = +1 | x_i)):
//   empirical_sum  sum_i (d log P(y_i | x_i) / d w)^2 = sum_i sigmoid(-y_i f_i)^2 (d f_i / d w)^2:
//                  the official code's estimate_fisher (synthetic/cl_cnn_replay_ewc.py, lines 59-87:
//                  squared per-sample gradients of the true label's log-likelihood, summed; the
//                  division at line 85 is by the number of batches, one);
//   expected_mean  (1/n) sum_i p_i (1 - p_i) (d f_i / d w)^2: the Fisher of the model's predictive
//                  distribution, averaged over samples.
// On a well-fitted task-1 model sigmoid(-y f) ~ 1 - p is small, so empirical_sum is about
// n (1 - p) times expected_mean (measured on the sweep's task-1 models: 0.002 times).
enum class FisherKind { empirical_sum, expected_mean };
// "empirical-sum" or "expected-mean"; parse_fisher_kind throws dmlkit::Error("", 0, "fisher", ...).
FisherKind parse_fisher_kind(const std::string& name);
std::string fisher_kind_name(FisherKind kind);

struct PatchCnnShape {
  int patch_len = 100;
  int filters_per_class = 10;  // m
  int power_q = 3;             // q of ReLU^q (q >= 1)
  float output_scale = 1.0f;   // multiplies F_j (1/m for the normalised head)
};

class PatchCnn {
 public:
  // Filters drawn i.i.d. U(-1/sqrt(patch_len), 1/sqrt(patch_len)) -- PyTorch's default Conv1d
  // initialisation for one input channel.
  PatchCnn(PatchCnnShape shape, Rng& rng);
  PatchCnn(PatchCnnShape shape, Matrix weights);

  const PatchCnnShape& shape() const { return shape_; }
  // 2m x patch_len; rows [0, m) belong to class +1, rows [m, 2m) to class -1.
  const Matrix& weights() const { return w_; }
  Matrix& weights() { return w_; }

  // f(x_i) for every sample.
  std::vector<float> outputs(const PatchDataset& data) const;
  // Fraction of samples with y_i * f(x_i) <= 0 (a tie counts as an error).
  double error(const PatchDataset& data) const;
  // Mean logistic loss; when grad != nullptr it receives d(loss)/d(weights) (same shape).
  double loss_and_grad(const PatchDataset& data, Matrix* grad) const;
  // Diagonal Fisher information on `data` (see FisherKind), each weight's per-sample output
  // gradient computed exactly.
  Matrix fisher_diagonal(const PatchDataset& data, FisherKind kind) const;

 private:
  // Activations A = U W^T of the unique patches, then sigma(A) and sigma'(A) in place.
  void activate(const PatchDataset& data, Matrix& value, Matrix& slope) const;
  PatchCnnShape shape_;
  Matrix w_;
};

}  // namespace dmlkit::learn
