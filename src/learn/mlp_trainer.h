// Training an MLP (learn/mlp.h) with libtorch: the trainer lives in the libtorch plugin, loaded on
// first use (learn/torch_plugin.h, MlpTrainerEngine documents the losses and the Adam update).
#pragma once
#include <memory>
#include <vector>

#include "learn/torch_plugin.h"

namespace dmlkit::learn {

// Throws dmlkit::Error on a bad shape, a parameter count that does not match it, or a plugin
// that cannot be loaded.
std::unique_ptr<MlpTrainerEngine> make_mlp_trainer(const MlpShape& shape, const std::vector<float>& parameters,
                                                   double learning_rate);
// The same for a column-shared network (learn/column_net.h).
std::unique_ptr<MlpTrainerEngine> make_column_trainer(const ColumnNetShape& shape, const std::vector<float>& parameters,
                                                      double learning_rate);
// The same for an attention network (learn/attn_net.h; flat padded rows).
std::unique_ptr<MlpTrainerEngine> make_attn_trainer(const AttnShape& shape, const std::vector<float>& parameters,
                                                    double learning_rate);

}  // namespace dmlkit::learn
