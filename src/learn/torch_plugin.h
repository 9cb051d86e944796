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
};

// Bumped whenever TorchPlugin or SmallCnnEngine changes; the loader refuses another version.
constexpr int kTorchPluginAbi = 3;

// The plugin's table, loaded on first use (thread-safe). Looked up at $DMLKIT_TORCH_PLUGIN if set,
// else at the path the build wrote it to. Throws dmlkit::Error naming the file if it cannot be
// loaded.
const TorchPlugin& torch_plugin();

}  // namespace dmlkit::learn

// Exported by the plugin (C linkage: found with dlsym).
extern "C" const dmlkit::learn::TorchPlugin* dmlkit_torch_plugin();
