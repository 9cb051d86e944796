// libtorch engine of the small image CNN of learn/small_cnn.h (class-incremental split of the
// "Angle Matters" replay study, Wan et al., ICML 2025), part of the libtorch plugin
// (learn/torch_plugin.h): forward pass with ATen operators, gradients by autograd, plain or
// momentum SGD written here on the parameter tensors. Shapes, initial values, argument checks and
// accuracy are in learn/small_cnn.cpp.
// Determinism: the initial weights come from dmlkit::Rng (copied into the tensors), the batch
// order from the caller's Rng, and every call runs torch on one intra-op thread of the calling
// thread, so the numbers do not depend on the experiment's thread count.
// [A] Inference runs in chunks of kChunkRows images (memory bound only; results are identical).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

#include "core/error.h"
#include "learn/torch/torch_impl.h"

namespace dmlkit::learn::torch_impl {
namespace {

constexpr int64_t kChunkRows = 512;

void bad(const std::string& field, const std::string& why) { throw Error("", 0, field, why); }

// The rows of x as an n x 1 x R x C tensor sharing x's memory (no copy).
at::Tensor image_tensor(const Matrix& x, const SmallCnnShape& s) {
  if (x.cols() != static_cast<Eigen::Index>(s.image_rows) * s.image_cols)
    bad("image", "rows have " + std::to_string(x.cols()) + " values, the network expects " +
                     std::to_string(s.image_rows) + "x" + std::to_string(s.image_cols));
  return at::from_blob(const_cast<float*>(x.data()), {static_cast<int64_t>(x.rows()), 1, s.image_rows, s.image_cols},
                       at::kFloat);
}

at::Tensor label_tensor(const std::vector<int>& labels, Eigen::Index rows, int classes) {
  if (labels.size() != static_cast<size_t>(rows))
    bad("labels", std::to_string(labels.size()) + " labels for " + std::to_string(rows) + " images");
  std::vector<int64_t> y(labels.begin(), labels.end());
  for (int64_t v : y)
    if (v < 0 || v >= classes)
      bad("labels", "label " + std::to_string(v) + " outside [0, " + std::to_string(classes) + ")");
  return at::from_blob(y.data(), {static_cast<int64_t>(y.size())}, at::kLong).clone();
}

Matrix to_matrix(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  Matrix m(c.size(0), c.size(1));
  std::copy(c.data_ptr<float>(), c.data_ptr<float>() + c.numel(), m.data());
  return m;
}

class TorchSmallCnn final : public SmallCnnEngine {
 public:
  TorchSmallCnn(const SmallCnnShape& shape, const std::vector<float>& values) : shape_(shape) { load(values); }

  std::unique_ptr<SmallCnnEngine> clone() const override {
    return std::make_unique<TorchSmallCnn>(shape_, parameters());
  }

  std::vector<float> parameters() const override { return flatten_tensors(params_); }

  void set_parameters(const std::vector<float>& values) override { load(values); }

  Matrix forward_rows(const Matrix& x, bool want_logits) const override {
    use_one_torch_thread();
    c10::InferenceMode guard;
    const at::Tensor all = image_tensor(x, shape_);
    Matrix out(x.rows(), want_logits ? shape_.classes : shape_.feature_dim);
    for (int64_t start = 0; start < all.size(0); start += kChunkRows) {
      at::Tensor l;
      const at::Tensor f =
          forward(all.narrow(0, start, std::min(kChunkRows, all.size(0) - start)), want_logits ? &l : nullptr);
      const at::Tensor& rows = want_logits ? l : f;
      out.middleRows(start, rows.size(0)) = to_matrix(rows);
    }
    return out;
  }

  double loss(const Matrix& x, const std::vector<int>& labels) const override {
    use_one_torch_thread();
    c10::InferenceMode guard;
    const at::Tensor all = image_tensor(x, shape_), y = label_tensor(labels, x.rows(), shape_.classes);
    if (x.rows() == 0) return 0.0;
    double total = 0.0;
    for (int64_t start = 0; start < all.size(0); start += kChunkRows) {
      const int64_t len = std::min(kChunkRows, all.size(0) - start);
      at::Tensor l;
      forward(all.narrow(0, start, len), &l);
      total += at::nll_loss(at::log_softmax(l, 1), y.narrow(0, start, len), {}, at::Reduction::Sum).item<double>();
    }
    return total / static_cast<double>(x.rows());
  }

  void train_sgd(const Matrix& x, const std::vector<int>& labels, const SmallCnnSgd& sgd, Rng& rng) override {
    use_one_torch_thread();
    const at::Tensor all = image_tensor(x, shape_), y = label_tensor(labels, x.rows(), shape_.classes);
    const size_t n = static_cast<size_t>(x.rows());
    if (n == 0) return;
    std::vector<at::Tensor> velocity;
    if (sgd.momentum > 0)
      for (const auto& p : params_) velocity.push_back(at::zeros_like(p.detach()));
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), int64_t{0});
    const double lr = sgd.learning_rate;
    for (int e = 0; e < sgd.epochs; ++e) {
      rng.shuffle(order.begin(), order.end());
      for (size_t start = 0; start < n; start += sgd.batch_size) {
        const int64_t len = static_cast<int64_t>(std::min(n, start + sgd.batch_size) - start);
        const at::Tensor idx = at::from_blob(order.data() + start, {len}, at::kLong);
        at::Tensor logits;
        forward(all.index_select(0, idx), &logits);
        at::Tensor batch_loss = at::nll_loss(at::log_softmax(logits, 1), y.index_select(0, idx));
        if (!std::isfinite(batch_loss.item<double>()))
          bad("learning_rate", "training diverged (non-finite loss); lower the learning rate");
        for (auto& p : params_)
          if (p.grad().defined()) p.mutable_grad().zero_();
        batch_loss.backward();
        at::NoGradGuard no_grad;
        for (size_t k = 0; k < params_.size(); ++k) {
          at::Tensor& p = params_[k];
          if (sgd.momentum > 0) {
            velocity[k].mul_(sgd.momentum).add_(p.grad());
            p.sub_(velocity[k], lr);
          } else {
            p.sub_(p.grad(), lr);
          }
        }
      }
    }
  }

 private:
  void load(const std::vector<float>& values) {
    params_.clear();
    size_t offset = 0;
    for (const auto& sz : shape_.parameter_sizes()) {
      int64_t count = 1;
      for (int64_t d : sz) count *= d;
      at::Tensor t = at::from_blob(const_cast<float*>(values.data() + offset), sz, at::kFloat).clone();
      t.set_requires_grad(true);
      params_.push_back(t);
      offset += static_cast<size_t>(count);
    }
  }

  // Returns the features (after fc1 + ReLU) and, when logits_out is set, the logits.
  at::Tensor forward(const at::Tensor& x, at::Tensor* logits_out) const {
    at::Tensor h = at::max_pool2d(at::relu(at::conv2d(x, params_[0], params_[1])), {2, 2});
    h = at::max_pool2d(at::relu(at::conv2d(h, params_[2], params_[3])), {2, 2});
    at::Tensor f = at::relu(at::linear(h.reshape({h.size(0), -1}), params_[4], params_[5]));
    if (logits_out) *logits_out = at::linear(f, params_[6], params_[7]);
    return f;
  }

  SmallCnnShape shape_;
  std::vector<at::Tensor> params_;
};

}  // namespace

std::unique_ptr<SmallCnnEngine> make_small_cnn(const SmallCnnShape& shape, const std::vector<float>& values) {
  return std::make_unique<TorchSmallCnn>(shape, values);
}

}  // namespace dmlkit::learn::torch_impl
