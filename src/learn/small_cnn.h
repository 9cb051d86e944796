// A small convolutional image classifier (LeNet-like) for the class-incremental split of the
// "Angle Matters" replay study (Wan et al., ICML 2025; spec B.7/B.8): its penultimate layer gives
// the backbone features f_i on which the replay strategies select, as Mammoth's fill_buffer does
// with net(x, returnt='features').
//
//   x (1 x R x C) -> conv k x k (c1 channels, valid) -> ReLU -> 2x2 max-pool
//                 -> conv k x k (c2 channels, valid) -> ReLU -> 2x2 max-pool
//                 -> flatten -> linear (feature_dim) -> ReLU   = features(x)
//                 -> linear (classes)                          = logits(x)
//
// Trained with libtorch autograd: the tensors and their computations live in the libtorch plugin
// (learn/torch/small_cnn.cpp, loaded on first use, see learn/torch_plugin.h); this header and
// learn/small_cnn.cpp (shapes, initial values, checks, accuracy) speak Eigen. Every random number (initial
// weights, batch order) comes from the caller's dmlkit::Rng, never from torch's global generator;
// torch runs on one intra-op thread in the calling thread, so results do not depend on how many
// worker threads an experiment uses.
// [A] The architecture (two valid convolutions with max-pooling, one hidden linear layer) and its
//     default sizes are ours; the paper's CIFAR-100 runs use a CBAM-ResNet18 and the official
//     MNIST study a one-layer ReLU^3 head. Initialisation follows PyTorch's defaults for Conv2d
//     and Linear: weights and biases i.i.d. U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "learn/patch_dataset.h"

namespace dmlkit::learn {

class SmallCnnEngine;  // learn/torch_plugin.h

struct SmallCnnShape {
  int image_rows = 28, image_cols = 28;
  int conv1_channels = 8;   // c1
  int conv2_channels = 16;  // c2
  int kernel = 5;           // k (both convolutions, stride 1, no padding)
  int feature_dim = 64;     // width of the penultimate (feature) layer
  int classes = 10;

  // Throws dmlkit::Error naming the field when a size is not positive or the image is too small
  // for two valid k x k convolutions each followed by a 2x2 pooling.
  void validate() const;
  // Spatial size after the second pooling (rows, cols).
  int pooled_rows() const;
  int pooled_cols() const;
  // Number of trainable scalars.
  size_t parameter_count() const;
  // Sizes of the parameter tensors in the order of SmallCnn::parameters(): conv1.weight
  // [c1][1][k][k], conv1.bias, conv2.weight [c2][c1][k][k], conv2.bias, fc1.weight
  // [feature_dim][c2*pr*pc], fc1.bias, fc2.weight [classes][feature_dim], fc2.bias.
  std::vector<std::vector<int64_t>> parameter_sizes() const;
};

struct SmallCnnSgd {
  double learning_rate = 0.01;
  double momentum = 0.0;  // heavy-ball, as torch.optim.SGD (v = momentum*v + g; w -= lr*v)
  int epochs = 1;
  size_t batch_size = 64;
};

class SmallCnn {
 public:
  // Weights and biases of every layer i.i.d. U(-1/sqrt(fan_in), 1/sqrt(fan_in)) drawn from `rng`
  // in the order of parameters().
  SmallCnn(SmallCnnShape shape, Rng& rng);
  SmallCnn(const SmallCnn& other);             // deep copy
  SmallCnn& operator=(const SmallCnn& other);  // deep copy
  SmallCnn(SmallCnn&&) noexcept;
  SmallCnn& operator=(SmallCnn&&) noexcept;
  ~SmallCnn();

  const SmallCnnShape& shape() const { return shape_; }

  // All trainable scalars flattened in the order conv1.weight [c1][1][k][k], conv1.bias,
  // conv2.weight [c2][c1][k][k], conv2.bias, fc1.weight [feature_dim][c2*pr*pc] (flattened
  // channel-major), fc1.bias, fc2.weight [classes][feature_dim], fc2.bias.
  std::vector<float> parameters() const;
  // Replaces them (size must be shape().parameter_count(); Error otherwise).
  void set_parameters(const std::vector<float>& values);

  // Rows of x are images (image_rows * image_cols normalised pixels, row-major).
  Matrix logits(const Matrix& x) const;    // n x classes
  Matrix features(const Matrix& x) const;  // n x feature_dim
  // Fraction of rows whose argmax over the classes in `allowed_classes` (all when empty) is the
  // label. [A] Used with the classes seen so far in class-IL: unseen classes are masked out.
  double accuracy(const Matrix& x, const std::vector<int>& labels, const std::vector<int>& allowed_classes = {}) const;
  // Mean softmax cross-entropy over all classes of rows x with integer labels in [0, classes).
  double loss(const Matrix& x, const std::vector<int>& labels) const;
  // `sgd.epochs` passes of mini-batch SGD on the mean softmax cross-entropy; each epoch visits
  // the rows in an order shuffled with `rng` (Fisher-Yates), the last batch may be smaller.
  // Momentum buffers start at zero on every call. Throws Error on a bad label or size, or when
  // the loss becomes non-finite (field "learning_rate": diverged).
  void train_sgd(const Matrix& x, const std::vector<int>& labels, const SmallCnnSgd& sgd, Rng& rng);

 private:
  SmallCnnShape shape_;
  std::unique_ptr<SmallCnnEngine> engine_;
};

}  // namespace dmlkit::learn
