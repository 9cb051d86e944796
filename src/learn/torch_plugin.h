// The seam between learn/ and libtorch. Everything that calls libtorch lives in one plugin,
// libdmlkit_torch.so (src/learn/torch/), which is loaded with dlopen the first time a network is
// trained with it, so the many commands that never train one (cluster, comm, influence, live)
// start without loading libtorch and its ~300 shared libraries (measured: 0.45 s and 170 MB at
// every start otherwise; docs/performance.md).
// The plugin exports one C function returning this table; learn's public API (patch_cnn_batch.h,
// small_cnn.h) forwards to it.
#pragma once
#include <memory>
#include <vector>

#include "learn/attn_net.h"
#include "learn/column_net.h"
#include "learn/mlp.h"
#include "learn/patch_cnn_batch.h"
#include "learn/small_cnn.h"

namespace dmlkit::learn {

// A SmallCnn's weights and their libtorch computations (implemented in the plugin).
class SmallCnnEngine {
 public:
  virtual ~SmallCnnEngine() = default;
  virtual std::unique_ptr<SmallCnnEngine> clone() const = 0;
  virtual std::vector<float> parameters() const = 0;
  virtual void set_parameters(const std::vector<float>& values) = 0;
  // Logits (want_logits) or features of the rows of x, without autograd.
  virtual Matrix forward_rows(const Matrix& x, bool want_logits) const = 0;
  virtual double loss(const Matrix& x, const std::vector<int>& labels) const = 0;
  virtual void train_sgd(const Matrix& x, const std::vector<int>& labels, const SmallCnnSgd& sgd, Rng& rng) = 0;
};

// What one gradient computation reports (summed over its rows where it says "sum").
struct LossStats {
  double loss = 0;     // the batch's loss (mean over its rows)
  double entropy = 0;  // policy losses: mean over rows and actions of pi log(pi + 1e-6)
  int correct = 0;     // cross-entropy: rows whose arg-max output equals the label
};

// An MLP (learn/mlp.h) being trained with libtorch autograd and Adam (as TensorFlow's
// AdamOptimizer: beta1 0.9, beta2 0.999, eps 1e-8, bias-corrected step size). The add_* calls
// accumulate the gradient of one batch's loss; step(k) applies Adam to the sum divided by k (the
// average over k batches: DL2's central agent averages its actors' gradients) and clears it.
// Inputs are row-major rows x shape.inputs floats.
class MlpTrainerEngine {
 public:
  virtual ~MlpTrainerEngine() = default;
  virtual std::vector<float> parameters() const = 0;
  virtual void set_parameters(const std::vector<float>& values) = 0;
  // Adam's moments and step count, to resume training exactly (optimizer_state().size() is
  // 2 x parameter_count() + 1).
  virtual std::vector<float> optimizer_state() const = 0;
  virtual void set_optimizer_state(const std::vector<float>& state) = 0;
  virtual void set_learning_rate(double lr) = 0;
  // Mean categorical cross-entropy of softmax(outputs) against the labels.
  virtual LossStats add_cross_entropy_gradient(const float* x, int rows, const int* labels) = 0;
  // DL2's actor loss: -mean_rows(log pi(a) * advantage) + entropy_weight * mean_{rows,actions}
  // pi log(pi + 1e-6), with pi the softmax restricted to the row's allowed actions (mask != 0),
  // i.e. the masked, renormalised distribution the action was drawn from.
  virtual LossStats add_policy_gradient(const float* x, int rows, const unsigned char* masks, const int* actions,
                                        const float* advantages, double entropy_weight) = 0;
  // Critic loss: mean over rows of (output - target)^2 (one output).
  virtual LossStats add_value_gradient(const float* x, int rows, const float* targets) = 0;
  virtual void step(int batches) = 0;
  // Added in ABI 5 (Harmony's reward model): multi-output regression, the loss
  // sum_{rows,outputs} weight * (output - target)^2 / max(1e-12, sum of weights). `targets` and
  // `weights` are rows x outputs; a weight of 0 leaves that output out (e.g. an empty job slot).
  virtual LossStats add_regression_gradient(const float* x, int rows, const float* targets, const float* weights) = 0;
};

struct TorchPlugin {
  int abi_version = 0;
  std::vector<GdResult> (*train_full_batch)(const std::vector<PatchCnnTrainJob>& jobs, const GdConfig& config,
                                            const BatchTrainConfig& batch) = nullptr;
  GdResult (*train_one)(PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                        const QuadraticPenalty* penalty, Rng& rng) = nullptr;
  Matrix (*fisher_diagonal)(const PatchCnn& net, const PatchDataset& data, FisherKind kind) = nullptr;
  // A network of `shape` (already validated) with these parameters (parameter_count() values).
  std::unique_ptr<SmallCnnEngine> (*make_small_cnn)(const SmallCnnShape& shape,
                                                    const std::vector<float>& values) = nullptr;
  // An MLP trainer of `shape` (already validated) starting from these parameters.
  std::unique_ptr<MlpTrainerEngine> (*make_mlp_trainer)(const MlpShape& shape, const std::vector<float>& values,
                                                        double learning_rate) = nullptr;
  // A trainer of a column-shared network (learn/column_net.h; shape validated) with these
  // parameters: the same losses and Adam as make_mlp_trainer's.
  std::unique_ptr<MlpTrainerEngine> (*make_column_trainer)(const ColumnNetShape& shape,
                                                           const std::vector<float>& values,
                                                           double learning_rate) = nullptr;
  // Added in ABI 6 (harmony-seq2seq): a trainer of the attention network of learn/attn_net.h (shape
  // validated) over its flat padded rows, with the same losses and Adam (entropy: see attn_trainer.cpp).
  std::unique_ptr<MlpTrainerEngine> (*make_attn_trainer)(const AttnShape& shape, const std::vector<float>& values,
                                                         double learning_rate) = nullptr;
};

// Bumped whenever TorchPlugin or SmallCnnEngine changes; the loader refuses another version.
constexpr int kTorchPluginAbi = 6;

// The plugin's table, loaded on first use (thread-safe). Looked up at $DMLKIT_TORCH_PLUGIN if set,
// else at the path the build wrote it to. Throws dmlkit::Error naming the file if it cannot be
// loaded.
const TorchPlugin& torch_plugin();

}  // namespace dmlkit::learn

// Exported by the plugin (C linkage: found with dlsym).
extern "C" const dmlkit::learn::TorchPlugin* dmlkit_torch_plugin();
