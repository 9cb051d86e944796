// Multi-layer perceptron: shapes, initial values, forward pass; see mlp.h.
#include "learn/mlp.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace dmlkit::learn {

void MlpShape::validate() const {
  if (inputs <= 0) throw Error("network shape: field 'inputs' must be positive");
  if (outputs <= 0) throw Error("network shape: field 'outputs' must be positive");
  for (int h : hidden)
    if (h <= 0) throw Error("network shape: field 'hidden' must hold positive widths");
}

std::vector<std::vector<int>> MlpShape::parameter_sizes() const {
  std::vector<std::vector<int>> sizes;
  int in = inputs;
  for (int h : hidden) {
    sizes.push_back({h, in});
    sizes.push_back({h});
    if (affine) {
      sizes.push_back({h});
      sizes.push_back({h});
    }
    in = h;
  }
  sizes.push_back({outputs, in});
  sizes.push_back({outputs});
  return sizes;
}

size_t MlpShape::parameter_count() const {
  size_t n = 0;
  for (const auto& s : parameter_sizes()) {
    size_t k = 1;
    for (int d : s) k *= static_cast<size_t>(d);
    n += k;
  }
  return n;
}

std::vector<float> mlp_initial_parameters(const MlpShape& shape, Rng& rng) {
  shape.validate();
  std::vector<float> p;
  p.reserve(shape.parameter_count());
  auto weights = [&](int rows, int cols) {
    for (long i = 0; i < static_cast<long>(rows) * cols; ++i) {
      double z;
      do z = rng.normal(0.0, 1.0);
      while (std::abs(z) > 2.0);
      p.push_back(static_cast<float>(0.02 * z));
    }
  };
  int in = shape.inputs;
  for (int h : shape.hidden) {
    weights(h, in);
    p.insert(p.end(), h, 0.0f);
    if (shape.affine) {
      p.insert(p.end(), h, 1.0f);
      p.insert(p.end(), h, 0.0f);
    }
    in = h;
  }
  weights(shape.outputs, in);
  p.insert(p.end(), shape.outputs, 0.0f);
  return p;
}

MlpForward::MlpForward(const MlpShape& shape, std::vector<float> parameters)
    : shape_(shape), params_(std::move(parameters)) {
  shape_.validate();
  if (params_.size() != shape_.parameter_count())
    throw Error("network: " + std::to_string(params_.size()) + " parameters for a shape that has " +
                std::to_string(shape_.parameter_count()));
  int widest = std::max(shape_.inputs, shape_.outputs);
  for (int h : shape_.hidden) widest = std::max(widest, h);
  a_.assign(widest, 0.0f);
  b_.assign(widest, 0.0f);
  out_.assign(shape_.outputs, 0.0f);
  // Transposed weights; biases and affine parameters copied as they are.
  wt_.reserve(params_.size());
  const float* w = params_.data();
  int in = shape_.inputs;
  auto layer = [&](int out) {
    for (int i = 0; i < in; ++i)
      for (int o = 0; o < out; ++o) wt_.push_back(w[static_cast<size_t>(o) * in + i]);
    w += static_cast<size_t>(out) * in;
    wt_.insert(wt_.end(), w, w + out);
    w += out;
  };
  for (int h : shape_.hidden) {
    layer(h);
    if (shape_.affine) {
      wt_.insert(wt_.end(), w, w + 2 * h);
      w += 2 * h;
    }
    in = h;
  }
  layer(shape_.outputs);
}

namespace {

// b[0..out) += sum over the non-zero a[i], i in [from, to) increasing, of a[i] * wt[i * out ...].
// Cloned for AVX2 (chosen at load time); the same operations in the same order either way.
__attribute__((target_clones("avx2", "default"))) void accumulate(const float* __restrict wt,
                                                                  const float* __restrict a, int from, int to,
                                                                  int out, float* __restrict b) {
  for (int i = from; i < to; ++i) {
    const float x = a[i];
    if (x == 0.0f) continue;
    const float* col = wt + static_cast<size_t>(i) * out;
    for (int o = 0; o < out; ++o) b[o] += x * col[o];
  }
}

}  // namespace

void MlpForward::set_cached_prefix(int inputs) {
  prefix_ = std::clamp(inputs, 0, shape_.inputs);
  prefix_x_.assign(prefix_, 0.0f);
  const int first = shape_.hidden.empty() ? shape_.outputs : shape_.hidden[0];
  prefix_sum_.assign(prefix_ > 0 ? first : 0, 0.0f);
  prefix_valid_ = false;
}

const std::vector<float>& MlpForward::run(const float* x) {
  const float* w = wt_.data();
  const float inv_sd = 1.0f / std::sqrt(1.0f + kAffineEps);
  std::copy(x, x + shape_.inputs, a_.begin());
  int in = shape_.inputs;
  bool first = true;
  auto linear = [&](int out) {
    const float* bias = w + static_cast<size_t>(in) * out;
    int from = 0;
    if (first && prefix_ > 0) {
      // The first layer's sum over the cached prefix: reused when the prefix is bitwise the same.
      if (!prefix_valid_ || std::memcmp(prefix_x_.data(), x, sizeof(float) * prefix_) != 0) {
        std::copy(bias, bias + out, prefix_sum_.begin());
        accumulate(w, a_.data(), 0, prefix_, out, prefix_sum_.data());
        std::copy(x, x + prefix_, prefix_x_.begin());
        prefix_valid_ = true;
        ++prefix_misses_;
      }
      std::copy(prefix_sum_.begin(), prefix_sum_.end(), b_.begin());
      from = prefix_;
    } else {
      std::copy(bias, bias + out, b_.begin());
    }
    accumulate(w, a_.data(), from, in, out, b_.data());
    w += static_cast<size_t>(in) * out + out;
    first = false;
  };
  for (int h : shape_.hidden) {
    linear(h);
    for (int o = 0; o < h; ++o) b_[o] = std::max(b_[o], 0.0f);
    if (shape_.affine) {
      const float* gamma = w;
      const float* beta = w + h;
      for (int o = 0; o < h; ++o) b_[o] = gamma[o] * inv_sd * b_[o] + beta[o];
      w += 2 * h;
    }
    std::swap(a_, b_);
    in = h;
  }
  linear(shape_.outputs);
  std::copy(b_.begin(), b_.begin() + shape_.outputs, out_.begin());
  return out_;
}

bool masked_softmax(const std::vector<float>& logits, const std::vector<unsigned char>& mask,
                    std::vector<double>& probs) {
  probs.assign(logits.size(), 0.0);
  double mx = -INFINITY;
  for (size_t i = 0; i < logits.size(); ++i)
    if (mask[i]) mx = std::max(mx, static_cast<double>(logits[i]));
  if (mx == -INFINITY) return false;
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i)
    if (mask[i]) sum += probs[i] = std::exp(static_cast<double>(logits[i]) - mx);
  for (double& p : probs) p /= sum;
  return true;
}

}  // namespace dmlkit::learn
