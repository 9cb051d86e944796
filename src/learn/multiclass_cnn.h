// Multi-class version of the ReLU^q head for class-incremental learning: K classes with m
// bias-free filters each, logit_j(x) = scale * sum_{r in class j} max(0, <w_r, x>)^q, softmax
// cross-entropy, mini-batch SGD. Written by hand on Eigen like PatchCnn (one patch = the input).
#pragma once
#include <cstddef>
#include <vector>

#include "core/rng.h"
#include "learn/patch_dataset.h"

namespace dmlkit::learn {

struct MulticlassShape {
  int input_len = 784;
  int classes = 10;           // K
  int filters_per_class = 16; // m
  int power_q = 3;
  float output_scale = 1.0f;
};

class MulticlassCnn {
 public:
  // Filters i.i.d. U(-1/sqrt(input_len), 1/sqrt(input_len)).
  MulticlassCnn(MulticlassShape shape, Rng& rng);
  MulticlassCnn(MulticlassShape shape, Matrix weights);

  const MulticlassShape& shape() const { return shape_; }
  const Matrix& weights() const { return w_; }  // (K*m) x input_len; rows [j*m, (j+1)*m) for class j
  Matrix& weights() { return w_; }

  // n x K logits of the rows of x.
  Matrix logits(const Matrix& x) const;
  // Mean softmax cross-entropy of rows x with integer labels in [0, K); grad (same shape as the
  // weights) when not null.
  double loss_and_grad(const Matrix& x, const std::vector<int>& labels, Matrix* grad) const;
  // Fraction of rows whose argmax over the classes in `allowed` (all when empty) is the label.
  double accuracy(const Matrix& x, const std::vector<int>& labels, const std::vector<int>& allowed = {}) const;
  // `epochs` of shuffled mini-batch SGD.
  void train_sgd(const Matrix& x, const std::vector<int>& labels, double learning_rate, int epochs,
                 size_t batch_size, Rng& rng);

 private:
  MulticlassShape shape_;
  Matrix w_;
};

}  // namespace dmlkit::learn
