// libtorch implementation of the small image CNN of learn/small_cnn.h (class-incremental split of
// the "Angle Matters" replay study, Wan et al., ICML 2025): forward pass with ATen operators,
// gradients by autograd, plain or momentum SGD written here on the parameter tensors.
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
#include "learn/small_cnn.h"

namespace dmlkit::learn {
namespace {

constexpr int64_t kChunkRows = 512;

void bad(const std::string& field, const std::string& why) { throw Error("", 0, field, why); }

// torch's intra-op parallelism stays at one thread in every thread that runs a SmallCnn: the
// experiment parallelises over runs, and one thread per run keeps results thread-count free.
void use_one_torch_thread() {
  thread_local bool done = false;
  if (!done) {
    at::set_num_threads(1);
    done = true;
  }
}

int after_conv_pool(int size, int kernel) { return (size - kernel + 1) / 2; }

}  // namespace

void SmallCnnShape::validate() const {
  if (image_rows <= 0) bad("image_rows", "must be positive");
  if (image_cols <= 0) bad("image_cols", "must be positive");
  if (conv1_channels <= 0) bad("conv1_channels", "must be positive");
  if (conv2_channels <= 0) bad("conv2_channels", "must be positive");
  if (kernel <= 0) bad("kernel", "must be positive");
  if (feature_dim <= 0) bad("feature_dim", "must be positive");
  if (classes < 2) bad("classes", "must be at least 2");
  const int r1 = after_conv_pool(image_rows, kernel), c1 = after_conv_pool(image_cols, kernel);
  if (r1 < kernel || c1 < kernel || pooled_rows() < 1 || pooled_cols() < 1)
    bad("kernel", "a " + std::to_string(image_rows) + "x" + std::to_string(image_cols) +
                      " image is too small for two valid " + std::to_string(kernel) + "x" + std::to_string(kernel) +
                      " convolutions each followed by 2x2 pooling");
}

int SmallCnnShape::pooled_rows() const { return after_conv_pool(after_conv_pool(image_rows, kernel), kernel); }
int SmallCnnShape::pooled_cols() const { return after_conv_pool(after_conv_pool(image_cols, kernel), kernel); }

size_t SmallCnnShape::parameter_count() const {
  const size_t k2 = static_cast<size_t>(kernel) * static_cast<size_t>(kernel);
  const size_t c1 = static_cast<size_t>(conv1_channels), c2 = static_cast<size_t>(conv2_channels);
  const size_t flat = c2 * static_cast<size_t>(pooled_rows()) * static_cast<size_t>(pooled_cols());
  const size_t f = static_cast<size_t>(feature_dim), k = static_cast<size_t>(classes);
  return c1 * k2 + c1 + c2 * c1 * k2 + c2 + f * flat + f + k * f + k;
}

struct SmallCnn::Impl {
  // conv1.w, conv1.b, conv2.w, conv2.b, fc1.w, fc1.b, fc2.w, fc2.b
  std::vector<at::Tensor> params;

  static std::vector<std::vector<int64_t>> sizes(const SmallCnnShape& s) {
    const int64_t c1 = s.conv1_channels, c2 = s.conv2_channels, k = s.kernel, f = s.feature_dim;
    const int64_t flat = c2 * s.pooled_rows() * s.pooled_cols();
    return {{c1, 1, k, k}, {c1}, {c2, c1, k, k}, {c2}, {f, flat}, {f}, {s.classes, f}, {s.classes}};
  }

  void load(const SmallCnnShape& s, const std::vector<float>& values) {
    params.clear();
    size_t offset = 0;
    for (const auto& sz : sizes(s)) {
      int64_t count = 1;
      for (int64_t d : sz) count *= d;
      at::Tensor t = at::from_blob(const_cast<float*>(values.data() + offset), sz, at::kFloat).clone();
      t.set_requires_grad(true);
      params.push_back(t);
      offset += static_cast<size_t>(count);
    }
  }

  // Returns the features (after fc1 + ReLU) and, when logits_out is set, the logits.
  at::Tensor forward(const at::Tensor& x, at::Tensor* logits_out) const {
    at::Tensor h = at::max_pool2d(at::relu(at::conv2d(x, params[0], params[1])), {2, 2});
    h = at::max_pool2d(at::relu(at::conv2d(h, params[2], params[3])), {2, 2});
    at::Tensor f = at::relu(at::linear(h.reshape({h.size(0), -1}), params[4], params[5]));
    if (logits_out) *logits_out = at::linear(f, params[6], params[7]);
    return f;
  }

  // Logits (or features) of the rows of x, kChunkRows images at a time, without autograd.
  Matrix forward_rows(const Matrix& x, const SmallCnnShape& s, bool want_logits) const;
};

namespace {

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
    if (v < 0 || v >= classes) bad("labels", "label " + std::to_string(v) + " outside [0, " + std::to_string(classes) + ")");
  return at::from_blob(y.data(), {static_cast<int64_t>(y.size())}, at::kLong).clone();
}

Matrix to_matrix(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  Matrix m(c.size(0), c.size(1));
  std::copy(c.data_ptr<float>(), c.data_ptr<float>() + c.numel(), m.data());
  return m;
}

}  // namespace

Matrix SmallCnn::Impl::forward_rows(const Matrix& x, const SmallCnnShape& s, bool want_logits) const {
  use_one_torch_thread();
  c10::InferenceMode guard;
  const at::Tensor all = image_tensor(x, s);
  Matrix out(x.rows(), want_logits ? s.classes : s.feature_dim);
  for (int64_t start = 0; start < all.size(0); start += kChunkRows) {
    at::Tensor l;
    const at::Tensor f = forward(all.narrow(0, start, std::min(kChunkRows, all.size(0) - start)), want_logits ? &l : nullptr);
    const at::Tensor& rows = want_logits ? l : f;
    out.middleRows(start, rows.size(0)) = to_matrix(rows);
  }
  return out;
}

SmallCnn::SmallCnn(SmallCnnShape shape, Rng& rng) : shape_(shape), impl_(std::make_unique<Impl>()) {
  shape_.validate();
  std::vector<float> values;
  values.reserve(shape_.parameter_count());
  // fan_in of a weight is the product of its sizes after the first; a bias uses its layer's.
  int64_t fan_in = 1;
  for (const auto& sz : Impl::sizes(shape_)) {
    int64_t count = 1;
    for (int64_t d : sz) count *= d;
    if (sz.size() > 1) {
      fan_in = 1;
      for (size_t i = 1; i < sz.size(); ++i) fan_in *= sz[i];
    }
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    for (int64_t i = 0; i < count; ++i) values.push_back(static_cast<float>(rng.uniform(-bound, bound)));
  }
  impl_->load(shape_, values);
}

SmallCnn::SmallCnn(const SmallCnn& other) : shape_(other.shape_), impl_(std::make_unique<Impl>()) {
  impl_->load(shape_, other.parameters());
}

SmallCnn& SmallCnn::operator=(const SmallCnn& other) {
  if (this != &other) {
    shape_ = other.shape_;
    if (!impl_) impl_ = std::make_unique<Impl>();  // a moved-from network can be assigned again
    impl_->load(shape_, other.parameters());
  }
  return *this;
}

SmallCnn::SmallCnn(SmallCnn&&) noexcept = default;
SmallCnn& SmallCnn::operator=(SmallCnn&&) noexcept = default;
SmallCnn::~SmallCnn() = default;

std::vector<float> SmallCnn::parameters() const {
  std::vector<float> out;
  out.reserve(shape_.parameter_count());
  for (const auto& p : impl_->params) {
    const at::Tensor c = p.detach().contiguous();
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

void SmallCnn::set_parameters(const std::vector<float>& values) {
  if (values.size() != shape_.parameter_count())
    bad("parameters", std::to_string(values.size()) + " values, the network has " +
                          std::to_string(shape_.parameter_count()));
  impl_->load(shape_, values);
}

Matrix SmallCnn::logits(const Matrix& x) const { return impl_->forward_rows(x, shape_, /*want_logits=*/true); }

Matrix SmallCnn::features(const Matrix& x) const { return impl_->forward_rows(x, shape_, /*want_logits=*/false); }

double SmallCnn::accuracy(const Matrix& x, const std::vector<int>& labels, const std::vector<int>& allowed_classes) const {
  if (labels.size() != static_cast<size_t>(x.rows()))
    bad("labels", std::to_string(labels.size()) + " labels for " + std::to_string(x.rows()) + " images");
  if (x.rows() == 0) return 0.0;
  std::vector<bool> allowed(static_cast<size_t>(shape_.classes), allowed_classes.empty());
  for (int c : allowed_classes) {
    if (c < 0 || c >= shape_.classes) bad("allowed_classes", "class " + std::to_string(c) + " out of range");
    allowed[static_cast<size_t>(c)] = true;
  }
  const Matrix l = logits(x);
  size_t right = 0;
  for (Eigen::Index i = 0; i < l.rows(); ++i) {
    int best = -1;
    float best_value = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < shape_.classes; ++j)
      if (allowed[static_cast<size_t>(j)] && (best < 0 || l(i, j) > best_value)) {
        best_value = l(i, j);
        best = j;
      }
    if (best == labels[static_cast<size_t>(i)]) ++right;
  }
  return static_cast<double>(right) / static_cast<double>(x.rows());
}

double SmallCnn::loss(const Matrix& x, const std::vector<int>& labels) const {
  use_one_torch_thread();
  c10::InferenceMode guard;
  const at::Tensor all = image_tensor(x, shape_), y = label_tensor(labels, x.rows(), shape_.classes);
  if (x.rows() == 0) return 0.0;
  double total = 0.0;
  for (int64_t start = 0; start < all.size(0); start += kChunkRows) {
    const int64_t len = std::min(kChunkRows, all.size(0) - start);
    at::Tensor l;
    impl_->forward(all.narrow(0, start, len), &l);
    total += at::nll_loss(at::log_softmax(l, 1), y.narrow(0, start, len), {}, at::Reduction::Sum).item<double>();
  }
  return total / static_cast<double>(x.rows());
}

void SmallCnn::train_sgd(const Matrix& x, const std::vector<int>& labels, const SmallCnnSgd& sgd, Rng& rng) {
  use_one_torch_thread();
  if (sgd.batch_size == 0) bad("batch_size", "must be positive");
  if (sgd.epochs < 0) bad("epochs", "must not be negative");
  if (!(sgd.learning_rate > 0) || !std::isfinite(sgd.learning_rate)) bad("learning_rate", "must be positive");
  if (!(sgd.momentum >= 0 && sgd.momentum < 1)) bad("momentum", "must be in [0, 1)");
  const at::Tensor all = image_tensor(x, shape_), y = label_tensor(labels, x.rows(), shape_.classes);
  const size_t n = static_cast<size_t>(x.rows());
  if (n == 0) return;
  std::vector<at::Tensor> velocity;
  if (sgd.momentum > 0)
    for (const auto& p : impl_->params) velocity.push_back(at::zeros_like(p.detach()));
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  const double lr = sgd.learning_rate;
  for (int e = 0; e < sgd.epochs; ++e) {
    for (size_t i = n; i > 1; --i)
      std::swap(order[i - 1], order[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(i) - 1))]);
    for (size_t start = 0; start < n; start += sgd.batch_size) {
      const int64_t len = static_cast<int64_t>(std::min(n, start + sgd.batch_size) - start);
      const at::Tensor idx = at::from_blob(order.data() + start, {len}, at::kLong);
      at::Tensor logits;
      impl_->forward(all.index_select(0, idx), &logits);
      at::Tensor batch_loss = at::nll_loss(at::log_softmax(logits, 1), y.index_select(0, idx));
      if (!std::isfinite(batch_loss.item<double>()))
        bad("learning_rate", "training diverged (non-finite loss); lower the learning rate");
      for (auto& p : impl_->params)
        if (p.grad().defined()) p.mutable_grad().zero_();
      batch_loss.backward();
      at::NoGradGuard no_grad;
      for (size_t k = 0; k < impl_->params.size(); ++k) {
        at::Tensor& p = impl_->params[k];
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

}  // namespace dmlkit::learn
