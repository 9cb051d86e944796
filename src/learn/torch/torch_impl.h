// Declarations shared by the translation units of the libtorch plugin (src/learn/torch/), which
// together implement the TorchPlugin table of learn/torch_plugin.h.
#pragma once
#include <memory>
#include <vector>

#include "learn/torch_plugin.h"

namespace dmlkit::learn::torch_impl {

std::vector<GdResult> train_full_batch(const std::vector<PatchCnnTrainJob>& jobs, const GdConfig& config,
                                       const BatchTrainConfig& batch);
GdResult train_one(PatchCnn& net, const PatchDataset& data, const GdConfig& config, const QuadraticPenalty* penalty,
                   Rng& rng);
Matrix fisher_diagonal(const PatchCnn& net, const PatchDataset& data);
std::unique_ptr<SmallCnnEngine> make_small_cnn(const SmallCnnShape& shape, const std::vector<float>& values);

}  // namespace dmlkit::learn::torch_impl
