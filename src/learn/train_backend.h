// Which implementation trains a patch CNN: `torch` (libtorch autograd, the plugin of
// learn/torch_plugin.h) or `eigen` (the hand-written forward/backward pass of learn/patch_cnn.h,
// the reference the libtorch code is tested against). Both compute the same model, loss, step and
// EWC penalty step, and draw the same mini-batch order from the caller's Rng; results agree to
// float rounding.
#pragma once
#include <string>

#include "learn/gradient_descent.h"

namespace dmlkit::learn {

enum class TrainBackend { torch, eigen };

// "torch" or "eigen"; throws dmlkit::Error("", 0, "backend", ...) otherwise.
TrainBackend parse_backend(const std::string& name);
std::string backend_name(TrainBackend b);

// train_gradient_descent on the chosen backend (full batch or shuffled mini-batches).
GdResult train_patch_cnn(TrainBackend backend, PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                         const QuadraticPenalty* penalty, Rng& rng);

// The Fisher diagonal of `kind` of `net` on `data` (PatchCnn::fisher_diagonal) on the chosen backend.
Matrix fisher_diagonal(TrainBackend backend, const PatchCnn& net, const PatchDataset& data, FisherKind kind);

}  // namespace dmlkit::learn
