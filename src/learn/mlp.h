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

 private:
  MlpShape shape_;
  std::vector<float> params_;
  std::vector<float> wt_;  // per layer: W transposed (in x out), then the bias (out)
  std::vector<float> a_, b_, out_;
  std::vector<int> nz_;  // scratch: the non-zero inputs of a layer
  int prefix_ = 0;
  bool prefix_valid_ = false;
  std::vector<float> prefix_x_, prefix_sum_;
  long prefix_misses_ = 0;
};

// How masked_softmax computes: std::exp one action at a time and a sequential sum (the default),
// or vectorised: a double-precision exponential within 2 units in the last place of std::exp's
// (exp_nonpositive_values) and the maximum and sum in blocks of 4 (DL2's policy at run time,
// docs/performance.md): the probabilities then differ from the default's in their last bits only.
enum class SoftmaxExp { Std, Vector };

// softmax(logits) restricted to mask[i] != 0 (others 0), written to probs; returns false if no
// action is allowed.
bool masked_softmax(const std::vector<float>& logits, const std::vector<unsigned char>& mask,
                    std::vector<double>& probs, SoftmaxExp exp_kind = SoftmaxExp::Std);

// y[i] = e^x[i] for x[i] <= 0 (x and y distinct arrays), vectorised (see SoftmaxExp).
void exp_nonpositive_values(const double* x, double* y, int n);

}  // namespace dmlkit::learn
