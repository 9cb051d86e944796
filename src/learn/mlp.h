// A small fully connected network (multi-layer perceptron) for the schedulers that learn (DL2's
// policy and value networks; later Harmony's): the shape, the flat parameter vector, its initial
// values, and a forward pass in plain C++ (float32) used at run time, so a trained policy decides
// without loading libtorch (learn/torch_plugin.h: the plugin is loaded only to train).
//
//   x -> [Linear(h_k) -> ReLU -> (Affine)] for each hidden width h_k -> Linear(outputs)
//
// `affine` is the batch-normalisation layer as DL2's public networks run it: tflearn's
// batch_normalization in its default inference mode (the code never switches tflearn to training
// mode), which normalises with the moving mean 0 and variance 1 that are never updated, so it is a
// learned per-unit scale gamma / sqrt(1 + eps) and shift beta (eps = 1e-5, gamma starts at 1, beta
// at 0). We keep exactly that (a trainable affine per unit), documented in docs/dl2.md.
// Parameters, in order, for each hidden layer: W [h][in] row-major, b [h], and with `affine` gamma
// [h], beta [h]; then the output layer's W [outputs][last] and b [outputs]. Initial values as
// tflearn's fully_connected defaults: W ~ truncated normal (stddev 0.02, redrawn beyond 2 sd), b = 0.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/rng.h"

namespace dmlkit::learn {

struct MlpShape {
  int inputs = 1;
  std::vector<int> hidden;
  int outputs = 1;
  bool affine = false;  // per-unit scale and shift after each hidden ReLU (see above)

  // Throws dmlkit::Error naming the field when a size is not positive.
  void validate() const;
  size_t parameter_count() const;
  // Tensor sizes in parameter order (matrices as {rows, cols}, vectors as {n}).
  std::vector<std::vector<int>> parameter_sizes() const;
  bool operator==(const MlpShape&) const = default;
};

inline constexpr float kAffineEps = 1e-5f;  // tflearn batch_normalization's epsilon

// Initial parameters (see the file comment), drawn from `rng`.
std::vector<float> mlp_initial_parameters(const MlpShape& shape, Rng& rng);

// The forward pass for one input row; holds its scratch buffers, so repeated calls allocate nothing.
// Not thread-safe: one per thread. Each layer is computed as b = bias + sum_i a_i W[:, i] over the
// non-zero inputs a_i in increasing i (the state's empty columns and the ReLUs' zeros cost
// nothing), from a transposed copy of the weights, with the outputs in blocks held in vector
// registers and without reordering any sum (no fused multiply-add): the result is the same on
// every x86-64 machine, with or without AVX2.
class MlpForward {
 public:
  MlpForward() = default;
  MlpForward(const MlpShape& shape, std::vector<float> parameters);
  const MlpShape& shape() const { return shape_; }
  const std::vector<float>& parameters() const { return params_; }
  // Outputs (logits / values) of the input x (shape().inputs values); valid until the next call.
  const std::vector<float>& run(const float* x);
  // Inputs [0, n) are expected to repeat between calls (DL2: the job type, age and remaining-work
  // rows stay the same within a slot): the first layer's partial sum over them is kept and reused
  // while they are bitwise the same as in the call that computed it. The outputs are unchanged (the
  // sum runs over the inputs in the same increasing order either way). 0 (the default) = off.
  void set_cached_prefix(int n);
  long prefix_misses() const { return prefix_misses_; }  // partial sums recomputed (tests)
  // A cached first-layer partial sum: the prefix inputs it was computed from, and the sum. run(x)
  // uses one of its own; a caller with several input sequences whose prefixes repeat (the column
  // network: one per column) keeps one per sequence (made by prefix_cache(), after
  // set_cached_prefix) and passes it: the same outputs as run(x).
  struct Prefix {
    std::vector<float> x, sum;
    bool valid = false;
  };
  Prefix prefix_cache() const;
  const std::vector<float>& run(const float* x, Prefix& prefix);

 private:
  MlpShape shape_;
  std::vector<float> params_;
  std::vector<float> wt_;  // per layer: W transposed (in x out), then the bias (out)
  std::vector<float> a_, b_, out_;
  std::vector<int> nz_, next_;  // scratch: the non-zero inputs of a layer, of the next
  int prefix_ = 0;
  Prefix own_;
  long prefix_misses_ = 0;
};

// The incremental forward pass ([A], ours; DL2's `dl2.incremental=on`, docs/dl2.md): for inputs
// that change in a few places between calls (DL2's slot: one job's column, three inputs, per
// inference). The first layer's pre-activations W x + b are kept in double precision and updated
// by the changed inputs' weight columns times their deltas (exact products, one rounding per
// addition); every hidden layer's affine (gamma / sqrt(1 + eps), beta) is folded into the next
// layer when the parameters are loaded (W' = W diag(gamma / sqrt(1 + eps)), b' = b + W beta, computed
// in double, rounded once to float), so the next layer's inputs are the ReLU outputs and their
// zeros cost nothing. The later layers are MlpForward's (blocked, no fused multiply-add).
// Different rounding from MlpForward (a different summation order and the folding): the outputs
// agree to about 1e-6 relative, not bit for bit (tests/learn/mlp_test.cpp). Needs a hidden layer.
// Allocation-free after construction; not thread-safe.
class MlpIncremental {
 public:
  MlpIncremental() = default;
  MlpIncremental(const MlpShape& shape, const std::vector<float>& parameters);
  const MlpShape& shape() const { return shape_; }
  // Outputs of x with the first layer computed from scratch (in double, over the non-zero inputs in
  // increasing order); valid until the next call.
  const std::vector<float>& run(const float* x);
  // Outputs of x, which differs from the previous call's input (run or run_changed) only at the n
  // indices in `changed` (any order, no repeats); the first layer is updated, not recomputed.
  // Without a previous call, the same as run(x).
  const std::vector<float>& run_changed(const float* x, const int* changed, int n);

 private:
  const std::vector<float>& finish();

  MlpShape shape_;
  std::vector<double> w1t_;  // first layer: W transposed (inputs x h0)
  std::vector<double> b1_;
  std::vector<double> z1_;   // W x + b of the last input
  std::vector<float> x_;     // the last input
  bool valid_ = false;
  std::vector<float> wt_;    // later layers: W' transposed (in x out), then b'
  std::vector<float> a_, b_, out_;
  std::vector<int> nz_, next_;
};

// How masked_softmax computes: std::exp one action at a time and a sequential sum (the default),
// or vectorised: a double-precision exponential within 2 units in the last place of std::exp's
// (exp_nonpositive_values) and the maximum and sum in blocks of 4 (DL2's policy at run time,
// docs/performance.md): the probabilities then differ from the default's in their last bits only.
// Float: single-precision exponentials (exp_nonpositive_floats, within 2e-7 relative) and sum,
// 8 at a time; the probabilities agree with the default's within 2e-6 relative plus 1e-12 (DL2's
// incremental fast path only, dl2.incremental=on; an action whose e^(logit - max) is below
// e^-87, about 1.6e-38, gets probability 0).
enum class SoftmaxExp { Std, Vector, Float };

// softmax(logits) restricted to mask[i] != 0 (others 0), written to probs; returns false if no
// action is allowed.
bool masked_softmax(const std::vector<float>& logits, const std::vector<unsigned char>& mask,
                    std::vector<double>& probs, SoftmaxExp exp_kind = SoftmaxExp::Std);
// The same on n values (probs: n doubles).
bool masked_softmax(const float* logits, const unsigned char* mask, int n, double* probs,
                    SoftmaxExp exp_kind = SoftmaxExp::Std);

// The action a uniform number u in [0, 1) draws from probabilities prob(0) .. prob(n - 1) (not
// negative; prob(a) is called in increasing a): the first whose cumulative sum, added in that order,
// exceeds u, else the last with a positive probability (0 if none). Adding a zero leaves the sum as
// it is, so the first action where it exceeds u has a positive probability.
template <class Prob>
int last_positive(int n, Prob prob);
template <class Prob>
int inverse_cdf(int n, double u, Prob prob) {
  double acc = 0;
  for (int a = 0; a < n; ++a) {
    acc += prob(a);
    if (acc > u) return a;
  }
  return last_positive(n, prob);
}
// inverse_cdf's answer when u is not below the sum: the last action with a positive probability
// (0 if none).
template <class Prob>
int last_positive(int n, Prob prob) {
  for (int a = n - 1; a > 0; --a)
    if (!(prob(a) <= 0)) return a;
  return 0;
}

// y[i] = e^x[i] for x[i] <= 0 (x and y distinct arrays), vectorised (see SoftmaxExp).
void exp_nonpositive_values(const double* x, double* y, int n);
// The same in single precision, within 2e-7 relative of e^x for -87 <= x <= 0; 0 below -87.
void exp_nonpositive_floats(const float* x, float* y, int n);

}  // namespace dmlkit::learn
