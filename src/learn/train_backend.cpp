// Backend names and dispatch for patch-CNN training (see train_backend.h).
#include "learn/train_backend.h"

#include "core/error.h"
#include "learn/patch_cnn_batch.h"

namespace dmlkit::learn {

TrainBackend parse_backend(const std::string& name) {
  if (name == "torch") return TrainBackend::torch;
  if (name == "eigen") return TrainBackend::eigen;
  throw Error("", 0, "backend", "unknown backend '" + name + "' (expected torch or eigen)");
}

std::string backend_name(TrainBackend b) { return b == TrainBackend::torch ? "torch" : "eigen"; }

GdResult train_patch_cnn(TrainBackend backend, PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                         const QuadraticPenalty* penalty, Rng& rng) {
  if (backend == TrainBackend::torch) return train_gradient_descent_torch(net, data, config, penalty, rng);
  return train_gradient_descent(net, data, config, penalty, rng);
}

Matrix fisher_diagonal(TrainBackend backend, const PatchCnn& net, const PatchDataset& data, FisherKind kind) {
  return backend == TrainBackend::torch ? fisher_diagonal_torch(net, data, kind) : net.fisher_diagonal(data, kind);
}

}  // namespace dmlkit::learn
