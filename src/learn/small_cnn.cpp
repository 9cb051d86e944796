// The small image CNN (learn/small_cnn.h) outside libtorch: shape checks and sizes, initial values
// drawn from dmlkit::Rng, argument checks and accuracy; the tensors and their computations are the
// plugin's SmallCnnEngine (learn/torch/small_cnn.cpp), loaded on first use.
#include "learn/small_cnn.h"

#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "learn/torch_plugin.h"

namespace dmlkit::learn {
namespace {

void bad(const std::string& field, const std::string& why) { throw Error("", 0, field, why); }

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

std::vector<std::vector<int64_t>> SmallCnnShape::parameter_sizes() const {
  const int64_t c1 = conv1_channels, c2 = conv2_channels, k = kernel, f = feature_dim;
  const int64_t flat = c2 * pooled_rows() * pooled_cols();
  return {{c1, 1, k, k}, {c1}, {c2, c1, k, k}, {c2}, {f, flat}, {f}, {classes, f}, {classes}};
}

size_t SmallCnnShape::parameter_count() const {
  size_t total = 0;
  for (const auto& sz : parameter_sizes()) {
    size_t count = 1;
    for (int64_t d : sz) count *= static_cast<size_t>(d);
    total += count;
  }
  return total;
}

SmallCnn::SmallCnn(SmallCnnShape shape, Rng& rng) : shape_(shape) {
  shape_.validate();
  std::vector<float> values;
  values.reserve(shape_.parameter_count());
  // fan_in of a weight is the product of its sizes after the first; a bias uses its layer's.
  int64_t fan_in = 1;
  for (const auto& sz : shape_.parameter_sizes()) {
    int64_t count = 1;
    for (int64_t d : sz) count *= d;
    if (sz.size() > 1) {
      fan_in = 1;
      for (size_t i = 1; i < sz.size(); ++i) fan_in *= sz[i];
    }
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    for (int64_t i = 0; i < count; ++i) values.push_back(static_cast<float>(rng.uniform(-bound, bound)));
  }
  engine_ = torch_plugin().make_small_cnn(shape_, values);
}

SmallCnn::SmallCnn(const SmallCnn& other) : shape_(other.shape_), engine_(other.engine_->clone()) {}

SmallCnn& SmallCnn::operator=(const SmallCnn& other) {
  if (this != &other) {
    shape_ = other.shape_;
    engine_ = other.engine_->clone();
  }
  return *this;
}

SmallCnn::SmallCnn(SmallCnn&&) noexcept = default;
SmallCnn& SmallCnn::operator=(SmallCnn&&) noexcept = default;
SmallCnn::~SmallCnn() = default;

std::vector<float> SmallCnn::parameters() const { return engine_->parameters(); }

void SmallCnn::set_parameters(const std::vector<float>& values) {
  if (values.size() != shape_.parameter_count())
    bad("parameters",
        std::to_string(values.size()) + " values, the network has " + std::to_string(shape_.parameter_count()));
  engine_->set_parameters(values);
}

Matrix SmallCnn::logits(const Matrix& x) const { return engine_->forward_rows(x, /*want_logits=*/true); }

Matrix SmallCnn::features(const Matrix& x) const { return engine_->forward_rows(x, /*want_logits=*/false); }

double SmallCnn::accuracy(const Matrix& x, const std::vector<int>& labels,
                          const std::vector<int>& allowed_classes) const {
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

double SmallCnn::loss(const Matrix& x, const std::vector<int>& labels) const { return engine_->loss(x, labels); }

void SmallCnn::train_sgd(const Matrix& x, const std::vector<int>& labels, const SmallCnnSgd& sgd, Rng& rng) {
  if (sgd.batch_size == 0) bad("batch_size", "must be positive");
  if (sgd.epochs < 0) bad("epochs", "must not be negative");
  if (!(sgd.learning_rate > 0) || !std::isfinite(sgd.learning_rate)) bad("learning_rate", "must be positive");
  if (!(sgd.momentum >= 0 && sgd.momentum < 1)) bad("momentum", "must be in [0, 1)");
  engine_->train_sgd(x, labels, sgd, rng);
}

}  // namespace dmlkit::learn
