// Hand-written forward pass, backward pass and Fisher diagonal of the patch CNN (see patch_cnn.h).
#include "learn/patch_cnn.h"

#include <cmath>
#include <stdexcept>

#include "core/error.h"

namespace dmlkit::learn {
namespace {

// log(1 + exp(z)) without overflow.
double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }
double sigmoid(double z) {
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}
float int_pow(float x, int k) {
  float r = 1.0f;
  for (int i = 0; i < k; ++i) r *= x;
  return r;
}
void check_shape(const PatchCnnShape& s) {
  if (s.patch_len <= 0 || s.filters_per_class <= 0 || s.power_q < 1)
    throw std::invalid_argument("PatchCnn: patch_len, filters_per_class and power_q must be positive");
}

}  // namespace

FisherKind parse_fisher_kind(const std::string& name) {
  if (name == "empirical-sum") return FisherKind::empirical_sum;
  if (name == "expected-mean") return FisherKind::expected_mean;
  throw Error("", 0, "fisher", "unknown Fisher '" + name + "' (expected empirical-sum or expected-mean)");
}

std::string fisher_kind_name(FisherKind kind) {
  return kind == FisherKind::empirical_sum ? "empirical-sum" : "expected-mean";
}

PatchCnn::PatchCnn(PatchCnnShape shape, Rng& rng) : shape_(shape) {
  check_shape(shape_);
  const double bound = 1.0 / std::sqrt(static_cast<double>(shape_.patch_len));
  w_.resize(2 * shape_.filters_per_class, shape_.patch_len);
  for (Eigen::Index r = 0; r < w_.rows(); ++r)
    for (Eigen::Index k = 0; k < w_.cols(); ++k) w_(r, k) = static_cast<float>(rng.uniform(-bound, bound));
}

PatchCnn::PatchCnn(PatchCnnShape shape, Matrix weights) : shape_(shape), w_(std::move(weights)) {
  check_shape(shape_);
  if (w_.rows() != 2 * shape_.filters_per_class || w_.cols() != shape_.patch_len)
    throw std::invalid_argument("PatchCnn: weights must be 2m x patch_len");
}

void PatchCnn::activate(const PatchDataset& data, Matrix& value, Matrix& slope) const {
  if (data.patch_len != shape_.patch_len) throw std::invalid_argument("PatchCnn: patch length mismatch");
  value.noalias() = data.unique_patches * w_.transpose();
  slope.resize(value.rows(), value.cols());
  const int q = shape_.power_q;
  const Eigen::Index count = value.size();
  float* v = value.data();
  float* s = slope.data();
  for (Eigen::Index k = 0; k < count; ++k) {
    const float z = v[k] > 0.0f ? v[k] : 0.0f;
    const float zq1 = int_pow(z, q - 1);
    s[k] = static_cast<float>(q) * zq1;
    v[k] = zq1 * z;
  }
}

std::vector<float> PatchCnn::outputs(const PatchDataset& data) const {
  Matrix value, slope;
  activate(data, value, slope);
  const int m = shape_.filters_per_class;
  // h[u] = sum over class +1 filters minus sum over class -1 filters, per unique patch.
  Eigen::VectorXf h = value.leftCols(m).rowwise().sum() - value.rightCols(m).rowwise().sum();
  const float per_patch = shape_.output_scale / static_cast<float>(data.num_patches);
  std::vector<float> f(data.size(), 0.0f);
  for (size_t i = 0; i < data.size(); ++i) {
    float acc = 0.0f;
    for (int p = 0; p < data.num_patches; ++p) acc += h[data.patch_row[i * data.num_patches + p]];
    f[i] = per_patch * acc;
  }
  return f;
}

double PatchCnn::error(const PatchDataset& data) const {
  if (data.size() == 0) return 0.0;
  const auto f = outputs(data);
  size_t wrong = 0;
  for (size_t i = 0; i < f.size(); ++i)
    if (data.labels[i] * f[i] <= 0.0f) ++wrong;
  return static_cast<double>(wrong) / static_cast<double>(f.size());
}

double PatchCnn::loss_and_grad(const PatchDataset& data, Matrix* grad) const {
  Matrix value, slope;
  activate(data, value, slope);
  const int m = shape_.filters_per_class;
  const Eigen::VectorXf h = value.leftCols(m).rowwise().sum() - value.rightCols(m).rowwise().sum();
  const float per_patch = shape_.output_scale / static_cast<float>(data.num_patches);
  const size_t n = data.size();
  if (n == 0) {
    if (grad) grad->setZero(w_.rows(), w_.cols());
    return 0.0;
  }
  Eigen::VectorXf coef = Eigen::VectorXf::Zero(value.rows());  // d loss / d h[u]
  double loss = 0.0;
  for (size_t i = 0; i < n; ++i) {
    float f = 0.0f;
    for (int p = 0; p < data.num_patches; ++p) f += h[data.patch_row[i * data.num_patches + p]];
    f *= per_patch;
    const double margin = static_cast<double>(data.labels[i]) * f;
    loss += softplus(-margin);
    // d softplus(-y f) / d f = -y * sigmoid(-y f)
    const float g = static_cast<float>(-data.labels[i] * sigmoid(-margin) / static_cast<double>(n)) * per_patch;
    for (int p = 0; p < data.num_patches; ++p) coef[data.patch_row[i * data.num_patches + p]] += g;
  }
  if (grad) {
    // d loss / d A[u,r] = coef[u] * sign_r * sigma'(A[u,r]); grad W = (dA)^T U.
    slope.array().colwise() *= coef.array();
    slope.rightCols(m) *= -1.0f;
    grad->noalias() = slope.transpose() * data.unique_patches;
  }
  return loss / static_cast<double>(n);
}

Matrix PatchCnn::fisher_diagonal(const PatchDataset& data, FisherKind kind) const {
  Matrix value, slope;
  activate(data, value, slope);
  const int m = shape_.filters_per_class;
  const Eigen::VectorXf h = value.leftCols(m).rowwise().sum() - value.rightCols(m).rowwise().sum();
  const float per_patch = shape_.output_scale / static_cast<float>(data.num_patches);
  Matrix fisher = Matrix::Zero(w_.rows(), w_.cols());
  Matrix g(w_.rows(), w_.cols());
  const size_t n = data.size();
  for (size_t i = 0; i < n; ++i) {
    float f = 0.0f;
    for (int p = 0; p < data.num_patches; ++p) f += h[data.patch_row[i * data.num_patches + p]];
    f *= per_patch;
    // Weight of sample i: p (1 - p) (expected) or sigmoid(-y f)^2, the squared derivative of
    // log P(y | x) = -softplus(-y f) with respect to f (empirical).
    double weight = 0.0;
    if (kind == FisherKind::expected_mean) {
      const double prob = sigmoid(f);
      weight = prob * (1.0 - prob);
    } else {
      const double s = sigmoid(-static_cast<double>(data.labels[i]) * f);
      weight = s * s;
    }
    g.setZero();
    for (int p = 0; p < data.num_patches; ++p) {
      const int u = data.patch_row[i * data.num_patches + p];
      for (Eigen::Index r = 0; r < g.rows(); ++r) {
        const float sign = r < m ? 1.0f : -1.0f;
        g.row(r) += (sign * per_patch * slope(u, r)) * data.unique_patches.row(u);
      }
    }
    fisher.array() += static_cast<float>(weight) * g.array().square();
  }
  if (kind == FisherKind::expected_mean && n > 0) fisher /= static_cast<float>(n);
  return fisher;
}

}  // namespace dmlkit::learn
