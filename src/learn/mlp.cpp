// Multi-layer perceptron: shapes, initial values, forward pass; see mlp.h.
#include "learn/mlp.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.h"

namespace dmlkit::learn {

namespace {
// A layer's outputs are computed in blocks of 8 (mlp.h): its transposed weights' rows and its bias
// are padded with zeros to a multiple of 8 (the padding's outputs are 0 and never read).
int padded_width(int out) { return (out + 7) / 8 * 8; }
}  // namespace

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

namespace {

// One layer in the blocked forward pass's layout (mlp.h): W [out][in] (row-major, the parameters'
// order) transposed into `in` rows of padded_width(out) values (zeros beyond out), then the bias,
// padded with zeros. With scale and shift (the previous layer's affine folded in, MlpIncremental):
// W diag(scale) and b + W shift, computed in double and rounded once.
void pack_layer(const float* W, const float* b, int in, int out, const double* scale, const double* shift,
                std::vector<float>& wt) {
  const int stride = padded_width(out);
  for (int i = 0; i < in; ++i) {
    for (int o = 0; o < out; ++o) {
      const float v = W[static_cast<size_t>(o) * in + i];
      wt.push_back(scale != nullptr ? static_cast<float>(static_cast<double>(v) * scale[i]) : v);
    }
    wt.insert(wt.end(), stride - out, 0.0f);
  }
  for (int o = 0; o < out; ++o) {
    double bias = b[o];
    if (shift != nullptr)
      for (int i = 0; i < in; ++i) bias += static_cast<double>(W[static_cast<size_t>(o) * in + i]) * shift[i];
    wt.push_back(shift != nullptr ? static_cast<float>(bias) : b[o]);
  }
  wt.insert(wt.end(), stride - out, 0.0f);
}

}  // namespace

MlpForward::MlpForward(const MlpShape& shape, std::vector<float> parameters)
    : shape_(shape), params_(std::move(parameters)) {
  shape_.validate();
  if (params_.size() != shape_.parameter_count())
    throw Error("network: " + std::to_string(params_.size()) + " parameters for a shape that has " +
                std::to_string(shape_.parameter_count()));
  int widest = std::max(shape_.inputs, padded_width(shape_.outputs));
  for (int h : shape_.hidden) widest = std::max(widest, padded_width(h));
  a_.assign(widest, 0.0f);
  b_.assign(widest, 0.0f);
  out_.assign(shape_.outputs, 0.0f);
  nz_.assign(widest, 0);
  next_.assign(widest, 0);
  // Each layer packed (pack_layer); the affine parameters copied as they are.
  wt_.reserve(params_.size());
  const float* w = params_.data();
  int in = shape_.inputs;
  for (int h : shape_.hidden) {
    pack_layer(w, w + static_cast<size_t>(h) * in, in, h, nullptr, nullptr, wt_);
    w += static_cast<size_t>(h) * in + h;
    if (shape_.affine) {
      wt_.insert(wt_.end(), w, w + 2 * h);
      w += 2 * h;
    }
    in = h;
  }
  pack_layer(w, w + static_cast<size_t>(shape_.outputs) * in, in, shape_.outputs, nullptr, nullptr, wt_);
}

namespace {

// V8 values never cross a call boundary that another compiler unit sees: these helpers have internal
// linkage and are inlined, so GCC's note that returning a 32-byte vector without AVX changes the ABI
// does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
using V8 = float __attribute__((vector_size(32)));

inline V8 load8(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float* p, V8 v) { std::memcpy(p, &v, sizeof v); }

// For each byte value m: the positions of its set bits in increasing order (then zeros), and their
// number.
struct BitPositions {
  uint8_t pos[256][8];
  uint8_t count[256];
};
constexpr BitPositions bit_positions() {
  BitPositions t{};
  for (int m = 0; m < 256; ++m)
    for (int b = 0; b < 8; ++b)
      if ((m >> b) & 1) t.pos[m][t.count[m]++] = static_cast<uint8_t>(b);
  return t;
}
constexpr BitPositions kBitPositions = bit_positions();

#if defined(__SSE2__)
// Appends base + the positions of the set bits of the 8-bit mask m to nz[n..] (8 values written,
// n advanced by their number): no branch per value.
inline void append_positions(unsigned m, int base, int* nz, int& n) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i p = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kBitPositions.pos[m])), zero);
  const __m128i b = _mm_set1_epi32(base);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(nz + n), _mm_add_epi32(_mm_unpacklo_epi16(p, zero), b));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(nz + n + 4), _mm_add_epi32(_mm_unpackhi_epi16(p, zero), b));
  n += kBitPositions.count[m];
}
// Bit q set where v8[q] != 0 (q < 8).
inline unsigned nonzero_mask(const float* v8) {
  const __m128 zero = _mm_setzero_ps();
  return static_cast<unsigned>(_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(v8), zero))) |
         static_cast<unsigned>(_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(v8 + 4), zero))) << 4;
}
#else
inline void append_positions(unsigned m, int base, int* nz, int& n) {
  for (int q = 0; q < 8; ++q) nz[n + q] = base + kBitPositions.pos[m][q];
  n += kBitPositions.count[m];
}
inline unsigned nonzero_mask(const float* v8) {
  unsigned m = 0;
  for (int q = 0; q < 8; ++q) m |= static_cast<unsigned>(v8[q] != 0.0f) << q;
  return m;
}
#endif

// b[0..out) += sum over k of a[nz[k]] * wt[nz[k] * out ...], k increasing (nz: the non-zero inputs,
// increasing). The outputs are taken in blocks of 64, 32 (then 8, then one) held in registers
// across the inputs, so each output's sum is the same operations in the same order as the plain
// loop "for each input i, for each output o: b[o] += a[i] * wt[i][o]" (bit-identical; no fused
// multiply-add). Cloned for AVX2 (chosen at load time); the same operations in the same order either way.
// With `relu` (a hidden layer without the affine; out a multiple of 8): each output becomes
// max(output, 0) while still in its register, and the indices of the non-zero ones are written to
// relu (increasing: the next layer's input list, which then needs no scan); returns their number
// (0 without relu).
__attribute__((target_clones("avx2", "default"))) int accumulate(const float* __restrict wt, const float* __restrict a,
                                                                 const int* __restrict nz, int n, int out,
                                                                 const float* __restrict init, float* __restrict b,
                                                                 int* __restrict relu) {
  int listed = 0;
  // Stores a block's registers (rectified with relu: std::max(x, 0.0f), NaN kept) and lists its
  // non-zero outputs.
  auto finish = [&](int o, V8* s, int count) {
    for (int j = 0; j < count; ++j) {
      if (relu != nullptr) s[j] = s[j] < 0.0f ? V8{} : s[j];
      store8(b + o + 8 * j, s[j]);
    }
    if (relu != nullptr)
      for (int j = 0; j < count; ++j) append_positions(nonzero_mask(b + o + 8 * j), o + 8 * j, relu, listed);
  };
  int o = 0;
  for (; o + 64 <= out; o += 64) {
    V8 s[8];
    for (int j = 0; j < 8; ++j) s[j] = load8(init + o + 8 * j);
    for (int k = 0; k < n; ++k) {
      const float x = a[nz[k]];
      const float* col = wt + static_cast<size_t>(nz[k]) * out + o;
      for (int j = 0; j < 8; ++j) s[j] += x * load8(col + 8 * j);
    }
    finish(o, s, 8);
  }
  for (; o + 32 <= out; o += 32) {
    V8 s[4] = {load8(init + o), load8(init + o + 8), load8(init + o + 16), load8(init + o + 24)};
    for (int k = 0; k < n; ++k) {
      const float x = a[nz[k]];
      const float* col = wt + static_cast<size_t>(nz[k]) * out + o;
      s[0] += x * load8(col);
      s[1] += x * load8(col + 8);
      s[2] += x * load8(col + 16);
      s[3] += x * load8(col + 24);
    }
    finish(o, s, 4);
  }
  for (; o + 8 <= out; o += 8) {
    V8 s = load8(init + o);
    for (int k = 0; k < n; ++k) s += a[nz[k]] * load8(wt + static_cast<size_t>(nz[k]) * out + o);
    finish(o, &s, 1);
  }
  for (; o < out; ++o) {
    float s = init[o];
    for (int k = 0; k < n; ++k) s += a[nz[k]] * wt[static_cast<size_t>(nz[k]) * out + o];
    b[o] = s;
  }
  return listed;
}

// The indices i in [from, to) with a[i] != 0, increasing; returns their number. In blocks of 8: a
// bit mask of the non-zero values, and its set bits' positions from a table, written 8 at a time
// (the writes beyond the count stay below `to - from`, as at most i - from of the values before i
// were non-zero).
int nonzero(const float* a, int from, int to, int* nz) {
  int n = 0;
  int i = from;
  for (; i + 8 <= to; i += 8) append_positions(nonzero_mask(a + i), i, nz, n);
  for (; i < to; ++i) {
    nz[n] = i;
    n += a[i] != 0.0f;
  }
  return n;
}

// The packed layers (pack_layer) at w from the inputs a[0..in) whose non-zero ones are listed in
// nz[0..n): each hidden layer (widths `hidden`) b = bias + the inputs' rows, rectified (ReLU) with
// its non-zero outputs listed for the next layer (accumulate's relu), then the output layer
// (`outputs` wide). a, b: scratch of the widest layer (swapped: the outputs end in b); nz, next:
// lists of that size (swapped too).
void relu_layers(const float* w, int in, const int* hidden, int layers, int outputs, std::vector<float>& a,
                 std::vector<float>& b, std::vector<int>& nz, int n, std::vector<int>& next) {
  for (int k = 0; k <= layers; ++k) {
    const bool last = k == layers;
    const int out = padded_width(last ? outputs : hidden[k]);
    const float* bias = w + static_cast<size_t>(in) * out;
    const int listed = accumulate(w, a.data(), nz.data(), n, out, bias, b.data(), last ? nullptr : next.data());
    if (last) return;
    w = bias + out;
    in = hidden[k];
    n = listed;
    std::swap(a, b);
    std::swap(nz, next);
  }
}

}  // namespace

void MlpForward::set_cached_prefix(int inputs) {
  prefix_ = std::clamp(inputs, 0, shape_.inputs);
  own_ = prefix_cache();
}

MlpForward::Prefix MlpForward::prefix_cache() const {
  const int first = padded_width(shape_.hidden.empty() ? shape_.outputs : shape_.hidden[0]);
  return Prefix{std::vector<float>(prefix_, 0.0f), std::vector<float>(prefix_ > 0 ? first : 0, 0.0f), false};
}

const std::vector<float>& MlpForward::run(const float* x) { return run(x, own_); }

const std::vector<float>& MlpForward::run(const float* x, Prefix& prefix) {
  const int in = shape_.inputs, layers = static_cast<int>(shape_.hidden.size());
  const int out = padded_width(layers > 0 ? shape_.hidden[0] : shape_.outputs);
  const float* w = wt_.data();
  const float* bias = w + static_cast<size_t>(in) * out;
  const float* init = bias;
  if (prefix_ > 0) {
    // The first layer's sum over the cached prefix: reused when the prefix is bitwise the same.
    if (!prefix.valid || std::memcmp(prefix.x.data(), x, sizeof(float) * prefix_) != 0) {
      accumulate(w, x, nz_.data(), nonzero(x, 0, prefix_, nz_.data()), out, bias, prefix.sum.data(), nullptr);
      std::copy(x, x + prefix_, prefix.x.begin());
      prefix.valid = true;
      ++prefix_misses_;
    }
    init = prefix.sum.data();
  }
  const int n = nonzero(x, prefix_, in, nz_.data());
  if (!shape_.affine && layers > 0) {
    // ReLU only: each hidden layer lists its non-zero outputs for the next (accumulate's relu).
    const int listed = accumulate(w, x, nz_.data(), n, out, init, b_.data(), next_.data());
    std::swap(a_, b_);
    relu_layers(bias + out, shape_.hidden[0], shape_.hidden.data() + 1, layers - 1, shape_.outputs, a_, b_, next_,
                listed, nz_);
  } else {
    accumulate(w, x, nz_.data(), n, out, init, b_.data(), nullptr);
    w = bias + out;
    const float inv_sd = 1.0f / std::sqrt(1.0f + kAffineEps);
    for (int k = 0; k < layers; ++k) {  // each hidden layer rectified, scaled and shifted
      const int width = shape_.hidden[k];
      for (int o = 0; o < width; ++o) b_[o] = std::max(b_[o], 0.0f);
      const float* gamma = w;
      const float* beta = w + width;
      for (int o = 0; o < width; ++o) b_[o] = gamma[o] * inv_sd * b_[o] + beta[o];
      w += 2 * width;
      std::swap(a_, b_);
      const int next = padded_width(k + 1 < layers ? shape_.hidden[k + 1] : shape_.outputs);
      const float* next_bias = w + static_cast<size_t>(width) * next;
      accumulate(w, a_.data(), nz_.data(), nonzero(a_.data(), 0, width, nz_.data()), next, next_bias, b_.data(),
                 nullptr);
      w = next_bias + next;
    }
  }
  std::copy(b_.begin(), b_.begin() + shape_.outputs, out_.begin());
  return out_;
}

namespace {

// z[0..n) += d * w[0..n) in double (the compiler vectorises it; cloned for AVX2; no fused
// multiply-add in either clone).
__attribute__((target_clones("avx2", "default"))) void add_scaled(double d, const double* __restrict w, int n,
                                                                  double* __restrict z) {
  for (int o = 0; o < n; ++o) z[o] += d * w[o];
}

}  // namespace

MlpIncremental::MlpIncremental(const MlpShape& shape, const std::vector<float>& parameters) : shape_(shape) {
  shape_.validate();
  if (shape_.hidden.empty()) throw Error("network: the incremental forward pass needs a hidden layer");
  if (parameters.size() != shape_.parameter_count())
    throw Error("network: " + std::to_string(parameters.size()) + " parameters for a shape that has " +
                std::to_string(shape_.parameter_count()));
  const float* w = parameters.data();
  const int in0 = shape_.inputs, h0 = shape_.hidden[0];
  w1t_.resize(static_cast<size_t>(in0) * h0);
  for (int o = 0; o < h0; ++o)
    for (int i = 0; i < in0; ++i) w1t_[static_cast<size_t>(i) * h0 + o] = w[static_cast<size_t>(o) * in0 + i];
  w += static_cast<size_t>(in0) * h0;
  b1_.assign(w, w + h0);
  w += h0;
  z1_.assign(h0, 0.0);
  x_.assign(in0, 0.0f);
  // The previous hidden layer's affine, folded into each later layer (see mlp.h).
  const double inv_sd = static_cast<double>(1.0f / std::sqrt(1.0f + kAffineEps));
  std::vector<double> scale, shift;
  auto take_affine = [&](int h) {
    if (!shape_.affine) return;
    scale.resize(h);
    shift.resize(h);
    for (int i = 0; i < h; ++i) scale[i] = static_cast<double>(w[i]) * inv_sd;
    for (int i = 0; i < h; ++i) shift[i] = w[h + i];
    w += 2 * h;
  };
  take_affine(h0);
  int in = h0;
  auto layer = [&](int out) {
    const float* b = w + static_cast<size_t>(out) * in;
    pack_layer(w, b, in, out, shape_.affine ? scale.data() : nullptr, shape_.affine ? shift.data() : nullptr, wt_);
    w = b + out;
    in = out;
  };
  for (size_t k = 1; k < shape_.hidden.size(); ++k) {
    layer(shape_.hidden[k]);
    take_affine(shape_.hidden[k]);
  }
  layer(shape_.outputs);
  int widest = padded_width(shape_.outputs);
  for (int h : shape_.hidden) widest = std::max(widest, padded_width(h));
  a_.assign(widest, 0.0f);
  b_.assign(widest, 0.0f);
  out_.assign(shape_.outputs, 0.0f);
  nz_.assign(widest, 0);
  next_.assign(widest, 0);
}

const std::vector<float>& MlpIncremental::run(const float* x) {
  const int in0 = shape_.inputs, h0 = shape_.hidden[0];
  std::copy(b1_.begin(), b1_.end(), z1_.begin());
  for (int i = 0; i < in0; ++i)
    if (x[i] != 0.0f) add_scaled(x[i], w1t_.data() + static_cast<size_t>(i) * h0, h0, z1_.data());
  std::copy(x, x + in0, x_.begin());
  valid_ = true;
  return finish();
}

const std::vector<float>& MlpIncremental::run_changed(const float* x, const int* changed, int n) {
  if (!valid_) return run(x);
  const int h0 = shape_.hidden[0];
  for (int k = 0; k < n; ++k) {
    const int i = changed[k];
    // The difference of two floats is exact in double (their exponents are close here).
    const double d = static_cast<double>(x[i]) - static_cast<double>(x_[i]);
    if (d != 0.0) add_scaled(d, w1t_.data() + static_cast<size_t>(i) * h0, h0, z1_.data());
    x_[i] = x[i];
  }
  return finish();
}

const std::vector<float>& MlpIncremental::finish() {
  const int h0 = shape_.hidden[0];
  for (int o = 0; o < h0; ++o) a_[o] = std::max(static_cast<float>(z1_[o]), 0.0f);
  relu_layers(wt_.data(), h0, shape_.hidden.data() + 1, static_cast<int>(shape_.hidden.size()) - 1, shape_.outputs, a_,
              b_, nz_, nonzero(a_.data(), 0, h0, nz_.data()), next_);
  std::copy(b_.begin(), b_.begin() + shape_.outputs, out_.begin());
  return out_;
}

namespace {

// y[i] = e^x[i] for x[i] <= 0, in double precision within 2 units in the last place of the
// correctly rounded value (tests/learn/mlp_test.cpp): x = k ln 2 + r with |r| <= ln 2 / 2 (k by the
// 1.5 x 2^52 rounding trick, ln 2 split in two parts as fdlibm), e^r by its Taylor polynomial of
// degree 13 (truncation below 5e-18), times 2^k built in the exponent bits. A loop the compiler
// vectorises (cloned for AVX2); x below -708 (e^x near the smallest normal double) and NaN are
// left to std::exp.
using V4d = double __attribute__((vector_size(32)));
using V4l = long long __attribute__((vector_size(32)));

// e^r's Taylor polynomial of degree D by Horner's rule, lane by lane (V: a vector of float or
// double): p = 1/D!, then p = p r + 1/d! for d = D-1 .. 0 (each 1/d! computed in double at compile
// time, then rounded to the lane type).
template <int D>
constexpr std::array<double, D + 1> inverse_factorials() {
  std::array<double, D + 1> c{};
  double factorial = 1.0;  // exact in double up to 18!
  c[0] = 1.0;
  for (int d = 1; d <= D; ++d) {
    factorial *= d;
    c[d] = 1.0 / factorial;
  }
  return c;
}

template <int D, class V>
inline V taylor_exp(V r) {
  using S = std::remove_cvref_t<decltype(r[0])>;
  constexpr std::array<double, D + 1> c = inverse_factorials<D>();
  V p = V{} + static_cast<S>(c[D]);
  for (int d = D - 1; d >= 0; --d) p = p * r + static_cast<S>(c[d]);
  return p;
}

__attribute__((target_clones("avx2", "default"))) void exp_nonpositive(const double* __restrict x, double* __restrict y,
                                                                       int n) {
  constexpr double kLog2e = 1.4426950408889634074;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShift = 0x1.8p52;
  constexpr long long kShiftBits = 0x4338000000000000LL;
  for (int i = 0; i < n; i += 4) {
    V4d v = {0, 0, 0, 0};
    const bool whole = i + 4 <= n;
    if (whole)
      std::memcpy(&v, x + i, sizeof v);
    else
      for (int j = 0; j < n - i; ++j) v[j] = x[i + j];
    v = v < -708.0 ? V4d{} - 708.0 : v;  // NaN stays NaN; fixed below
    const V4d kd = v * kLog2e + kShift;
    const V4d k = kd - kShift;
    const V4d r = (v - k * kLn2Hi) - k * kLn2Lo;
    const V4d p = taylor_exp<13>(r);
    const V4l scale = ((V4l)kd - kShiftBits + 1023) << 52;
    const V4d e = p * (V4d)scale;
    if (whole)
      std::memcpy(y + i, &e, sizeof e);
    else
      for (int j = 0; j < n - i; ++j) y[i + j] = e[j];
  }
  for (int i = 0; i < n; ++i)
    if (!(x[i] >= -708.0)) y[i] = std::exp(x[i]);
}

// The masked softmax of SoftmaxExp::Vector: the maximum, the exponentials and their sum in
// blocks of 4 (the sum's order differs from the sequential one: the probabilities differ from
// masked_softmax's default in their last bits at most). Returns false if no action is allowed.
__attribute__((target_clones("avx2", "default"))) bool softmax_vector(const float* __restrict logits,
                                                                      const unsigned char* __restrict mask, int n,
                                                                      double* __restrict shifted,
                                                                      double* __restrict probs) {
  for (int i = 0; i < n; ++i) shifted[i] = mask[i] ? static_cast<double>(logits[i]) : -INFINITY;
  V4d vmx = V4d{} - INFINITY;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    V4d v;
    std::memcpy(&v, shifted + i, sizeof v);
    vmx = v > vmx ? v : vmx;
  }
  double mx = -INFINITY;
  for (int j = 0; j < 4; ++j) mx = std::max(mx, vmx[j]);
  for (; i < n; ++i) mx = std::max(mx, shifted[i]);
  if (mx == -INFINITY) return false;
  for (int j = 0; j < n; ++j) shifted[j] = mask[j] ? shifted[j] - mx : 0.0;
  exp_nonpositive(shifted, probs, n);
  for (int j = 0; j < n; ++j) probs[j] = mask[j] ? probs[j] : 0.0;
  V4d vsum = {0, 0, 0, 0};
  i = 0;
  for (; i + 4 <= n; i += 4) {
    V4d v;
    std::memcpy(&v, probs + i, sizeof v);
    vsum += v;
  }
  double sum = (vsum[0] + vsum[1]) + (vsum[2] + vsum[3]);
  for (; i < n; ++i) sum += probs[i];
  for (int j = 0; j < n; ++j) probs[j] /= sum;
  return true;
}

// y[i] = e^x[i] for x[i] <= 0 in single precision: x = k ln 2 + r, |r| <= ln 2 / 2 (k by the
// 1.5 x 2^23 rounding trick, ln 2 in two parts), e^r by its Taylor polynomial of degree 7
// (truncation below 6e-9 relative), times 2^k built in the exponent bits; below -87, 0 (e^-87 is
// near the smallest normal float). 8 at a time; cloned for AVX2.
using V8i = int __attribute__((vector_size(32)));

__attribute__((target_clones("avx2", "default"))) void exp_nonpositive_f(const float* x, float* y, int n) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // exact in 9 bits: k * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kShift = 0x1.8p23f;
  constexpr int kShiftBits = 0x4B400000;
  for (int i = 0; i < n; i += 8) {
    V8 v = {};
    const bool whole = i + 8 <= n;
    if (whole)
      std::memcpy(&v, x + i, sizeof v);
    else
      for (int j = 0; j < n - i; ++j) v[j] = x[i + j];
    const V8i under = v < -87.0f;
    v = under ? V8{} - 87.0f : v;
    const V8 kd = v * kLog2e + kShift;
    const V8 k = kd - kShift;
    const V8 r = (v - k * kLn2Hi) - k * kLn2Lo;
    const V8 p = taylor_exp<7>(r);
    const V8i scale = ((V8i)kd - kShiftBits + 127) << 23;
    V8 e = p * (V8)scale;
    e = under ? V8{} : e;
    if (whole)
      std::memcpy(y + i, &e, sizeof e);
    else
      for (int j = 0; j < n - i; ++j) y[i + j] = e[j];
  }
}

// The masked softmax of SoftmaxExp::Float (buf: n floats of scratch). Returns false if no action
// is allowed.
bool softmax_float(const float* logits, const unsigned char* mask, int n, float* buf, double* probs) {
  float mx = -INFINITY;
  for (int i = 0; i < n; ++i)
    if (mask[i] && logits[i] > mx) mx = logits[i];
  if (mx == -INFINITY) return false;
  for (int i = 0; i < n; ++i) buf[i] = mask[i] ? logits[i] - mx : -INFINITY;
  exp_nonpositive_f(buf, buf, n);
  float part[8] = {};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) part[j] += buf[i + j];
  for (; i < n; ++i) part[0] += buf[i];
  const double sum = ((static_cast<double>(part[0]) + part[1]) + (static_cast<double>(part[2]) + part[3])) +
                     ((static_cast<double>(part[4]) + part[5]) + (static_cast<double>(part[6]) + part[7]));
  const double inv = 1.0 / sum;
  for (int j = 0; j < n; ++j) probs[j] = buf[j] * inv;
  return true;
}

}  // namespace

void exp_nonpositive_values(const double* x, double* y, int n) { exp_nonpositive(x, y, n); }
void exp_nonpositive_floats(const float* x, float* y, int n) { exp_nonpositive_f(x, y, n); }

bool masked_softmax(const std::vector<float>& logits, const std::vector<unsigned char>& mask,
                    std::vector<double>& probs, SoftmaxExp exp_kind) {
  probs.resize(logits.size());
  return masked_softmax(logits.data(), mask.data(), static_cast<int>(logits.size()), probs.data(), exp_kind);
}

bool masked_softmax(const float* logits, const unsigned char* mask, int n, double* probs, SoftmaxExp exp_kind) {
  const auto un = static_cast<size_t>(n);
  if (exp_kind == SoftmaxExp::Float) {
    thread_local std::vector<float> buf;
    buf.resize(un);
    return softmax_float(logits, mask, n, buf.data(), probs);
  }
  if (exp_kind == SoftmaxExp::Vector) {
    thread_local std::vector<double> shifted;
    shifted.resize(un);
    return softmax_vector(logits, mask, n, shifted.data(), probs);
  }
  std::fill(probs, probs + n, 0.0);
  double mx = -INFINITY;
  for (int i = 0; i < n; ++i)
    if (mask[i]) mx = std::max(mx, static_cast<double>(logits[i]));
  if (mx == -INFINITY) return false;
  double sum = 0;
  for (int i = 0; i < n; ++i)
    if (mask[i]) sum += probs[i] = std::exp(static_cast<double>(logits[i]) - mx);
  for (int i = 0; i < n; ++i) probs[i] /= sum;
  return true;
}

}  // namespace dmlkit::learn
