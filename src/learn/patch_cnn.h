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
#include <vector>

#include "core/rng.h"
#include "learn/patch_dataset.h"

namespace dmlkit::learn {

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
  // Exact diagonal Fisher information of the model's predictive distribution on `data`:
  // (1/n) sum_i p_i (1 - p_i) (d f_i / d w)^2, with p_i = P(y = +1 | x_i) = sigmoid(f_i).
  Matrix fisher_diagonal(const PatchDataset& data) const;

 private:
  // Activations A = U W^T of the unique patches, then sigma(A) and sigma'(A) in place.
  void activate(const PatchDataset& data, Matrix& value, Matrix& slope) const;
  PatchCnnShape shape_;
  Matrix w_;
};

}  // namespace dmlkit::learn
