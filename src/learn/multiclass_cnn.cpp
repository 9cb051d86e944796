// Hand-written forward, backward and SGD of the multi-class ReLU^q head (see multiclass_cnn.h).
#include "learn/multiclass_cnn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace dmlkit::learn {
namespace {

void check(const MulticlassShape& s) {
  if (s.input_len <= 0 || s.classes < 2 || s.filters_per_class <= 0 || s.power_q < 1)
    throw std::invalid_argument("MulticlassCnn: bad shape");
}

}  // namespace

MulticlassCnn::MulticlassCnn(MulticlassShape shape, Rng& rng) : shape_(shape) {
  check(shape_);
  const double bound = 1.0 / std::sqrt(static_cast<double>(shape_.input_len));
  w_.resize(static_cast<Eigen::Index>(shape_.classes) * shape_.filters_per_class, shape_.input_len);
  for (Eigen::Index i = 0; i < w_.size(); ++i) w_.data()[i] = static_cast<float>(rng.uniform(-bound, bound));
}

MulticlassCnn::MulticlassCnn(MulticlassShape shape, Matrix weights) : shape_(shape), w_(std::move(weights)) {
  check(shape_);
  if (w_.rows() != static_cast<Eigen::Index>(shape_.classes) * shape_.filters_per_class || w_.cols() != shape_.input_len)
    throw std::invalid_argument("MulticlassCnn: weights must be (K*m) x input_len");
}

Matrix MulticlassCnn::logits(const Matrix& x) const {
  Matrix a = x * w_.transpose();
  const int q = shape_.power_q, m = shape_.filters_per_class;
  Matrix out(x.rows(), shape_.classes);
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (int j = 0; j < shape_.classes; ++j) {
      float acc = 0.0f;
      for (int r = j * m; r < (j + 1) * m; ++r) {
        const float z = std::max(0.0f, a(i, r));
        float p = 1.0f;
        for (int k = 0; k < q; ++k) p *= z;
        acc += p;
      }
      out(i, j) = shape_.output_scale * acc;
    }
  return out;
}

double MulticlassCnn::loss_and_grad(const Matrix& x, const std::vector<int>& labels, Matrix* grad) const {
  const Eigen::Index n = x.rows();
  if (static_cast<size_t>(n) != labels.size()) throw std::invalid_argument("MulticlassCnn: rows != labels");
  if (n == 0) {
    if (grad) grad->setZero(w_.rows(), w_.cols());
    return 0.0;
  }
  const Matrix a = x * w_.transpose();
  const int q = shape_.power_q, m = shape_.filters_per_class, K = shape_.classes;
  Matrix dA(a.rows(), a.cols());
  double loss = 0.0;
  std::vector<double> logit(static_cast<size_t>(K)), prob(static_cast<size_t>(K));
  for (Eigen::Index i = 0; i < n; ++i) {
    for (int j = 0; j < K; ++j) {
      double acc = 0.0;
      for (int r = j * m; r < (j + 1) * m; ++r) acc += std::pow(std::max(0.0f, a(i, r)), q);
      logit[static_cast<size_t>(j)] = shape_.output_scale * acc;
    }
    const double mx = *std::max_element(logit.begin(), logit.end());
    double z = 0.0;
    for (int j = 0; j < K; ++j) z += prob[static_cast<size_t>(j)] = std::exp(logit[static_cast<size_t>(j)] - mx);
    const int y = labels[static_cast<size_t>(i)];
    if (y < 0 || y >= K) throw std::invalid_argument("MulticlassCnn: label out of range");
    loss += -(logit[static_cast<size_t>(y)] - mx - std::log(z));
    for (int j = 0; j < K; ++j) {
      const double g = (prob[static_cast<size_t>(j)] / z - (j == y ? 1.0 : 0.0)) / static_cast<double>(n) * shape_.output_scale;
      for (int r = j * m; r < (j + 1) * m; ++r) {
        const float pos = std::max(0.0f, a(i, r));
        dA(i, r) = static_cast<float>(g * q * std::pow(pos, q - 1));
      }
    }
  }
  if (grad) grad->noalias() = dA.transpose() * x;
  return loss / static_cast<double>(n);
}

double MulticlassCnn::accuracy(const Matrix& x, const std::vector<int>& labels, const std::vector<int>& allowed) const {
  if (x.rows() == 0) return 0.0;
  const Matrix l = logits(x);
  size_t right = 0;
  for (Eigen::Index i = 0; i < l.rows(); ++i) {
    int best = -1;
    float best_v = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < shape_.classes; ++j) {
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), j) == allowed.end()) continue;
      if (l(i, j) > best_v) {
        best_v = l(i, j);
        best = j;
      }
    }
    if (best == labels[static_cast<size_t>(i)]) ++right;
  }
  return static_cast<double>(right) / static_cast<double>(x.rows());
}

void MulticlassCnn::train_sgd(const Matrix& x, const std::vector<int>& labels, double learning_rate, int epochs,
                              size_t batch_size, Rng& rng) {
  if (batch_size == 0) throw std::invalid_argument("MulticlassCnn: batch size 0");
  std::vector<size_t> order(static_cast<size_t>(x.rows()));
  std::iota(order.begin(), order.end(), size_t{0});
  Matrix grad, bx;
  std::vector<int> by;
  for (int e = 0; e < epochs; ++e) {
    for (size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(i) - 1))]);
    for (size_t start = 0; start < order.size(); start += batch_size) {
      const size_t end = std::min(order.size(), start + batch_size);
      bx.resize(static_cast<Eigen::Index>(end - start), x.cols());
      by.clear();
      for (size_t k = start; k < end; ++k) {
        bx.row(static_cast<Eigen::Index>(k - start)) = x.row(static_cast<Eigen::Index>(order[k]));
        by.push_back(labels[order[k]]);
      }
      loss_and_grad(bx, by, &grad);
      w_ -= static_cast<float>(learning_rate) * grad;
    }
  }
}

}  // namespace dmlkit::learn
