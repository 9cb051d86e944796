// Declarations shared by the translation units of the libtorch plugin (src/learn/torch/), which
// together implement the TorchPlugin table of learn/torch_plugin.h.
#pragma once
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <memory>
#include <vector>

#include "learn/torch_plugin.h"

namespace dmlkit::learn::torch_impl {

// Every libtorch call of the plugin runs on one intra-op thread of its calling thread: callers
// parallelise over networks or runs, and one thread each keeps results independent of the thread
// count. OpenMP thread counts are per thread, so this is set once in every thread that trains.
inline void use_one_torch_thread() {
  thread_local bool done = false;
  if (!done) {
    at::set_num_threads(1);
    done = true;
  }
}

// The values of `tensors`, flattened one after the other (a network's parameter vector).
std::vector<float> flatten_tensors(const std::vector<at::Tensor>& tensors);

std::vector<GdResult> train_full_batch(const std::vector<PatchCnnTrainJob>& jobs, const GdConfig& config,
                                       const BatchTrainConfig& batch);
GdResult train_one(PatchCnn& net, const PatchDataset& data, const GdConfig& config, const QuadraticPenalty* penalty,
                   Rng& rng);
Matrix fisher_diagonal(const PatchCnn& net, const PatchDataset& data, FisherKind kind);
std::unique_ptr<SmallCnnEngine> make_small_cnn(const SmallCnnShape& shape, const std::vector<float>& values);
std::unique_ptr<MlpTrainerEngine> make_mlp_trainer(const MlpShape& shape, const std::vector<float>& values,
                                                   double learning_rate);
std::unique_ptr<MlpTrainerEngine> make_column_trainer(const ColumnNetShape& shape, const std::vector<float>& values,
                                                      double learning_rate);
std::unique_ptr<MlpTrainerEngine> make_attn_trainer(const AttnShape& shape, const std::vector<float>& values,
                                                    double learning_rate);

}  // namespace dmlkit::learn::torch_impl
