// Full-batch gradient descent for many independent patch CNNs at once, on libtorch with autograd.
// An experiment such as the angle sweep of "Angle Matters" (Wan et al., ICML 2025) trains
// hundreds of tiny networks (2m x patch_len weights, ~100 samples); one at a time, libtorch's
// per-operation overhead would dominate. Here the networks are stacked into one batch tensor
// (B x 2m x d weights, B x u x d unique patches) so that each epoch is ~15 tensor operations for
// all of them, and autograd differentiates the batched loss sum_b loss_b (each network's gradient
// is that of its own mean logistic loss, the networks share nothing).
// Jobs are grouped by data shape (unique patches, samples) and penalty step, so no network is
// padded with another's data, and each network's row of per-sample losses is padded to a multiple
// of 64 so that ATen's vectorised element-wise kernels never run its samples through their scalar
// remainder loop (whose softplus differs in the last bit): a network's numbers do not depend on
// which other networks share its batch (tested bit for bit). Groups are cut into chunks of at most
// `chunk_models` networks, and chunks run on `threads` threads with one libtorch thread each.
// The same model, loss, step and EWC penalty step (gradient or proximal) as
// learn::train_gradient_descent (the hand-written Eigen reference, checked against it in
// tests/learn/patch_cnn_batch_test.cpp).
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "learn/gradient_descent.h"
#include "learn/patch_cnn.h"

namespace dmlkit::learn {

struct PatchCnnTrainJob {
  PatchCnn* net = nullptr;                    // trained in place; all jobs share one PatchCnnShape
  const PatchDataset* data = nullptr;         // full batch; all jobs share num_patches
  const QuadraticPenalty* penalty = nullptr;  // EWC when set (lambda may differ per job)
};

struct BatchTrainConfig {
  int chunk_models = 64;  // networks per batch tensor (docs/performance.md: 16 -> 24, 64 -> 20 us per network-epoch)
  int threads = 1;        // chunks trained in parallel; results do not depend on it
  // A job whose loss or weights become non-finite is marked diverged; checked every this many
  // epochs and at the end (GdResult::epochs_run is the check at which it was found).
  int divergence_check_epochs = 64;
  // Called from the worker threads (not serialised) after each chunk with its network count.
  std::function<void(size_t networks)> on_chunk_done;
};

// Full-batch gradient descent (config.batch_size must be 0) for every job; one result per job in
// job order. Throws std::invalid_argument if jobs differ in shape or a job is incomplete.
std::vector<GdResult> train_full_batch_torch(const std::vector<PatchCnnTrainJob>& jobs, const GdConfig& config,
                                             const BatchTrainConfig& batch = {});

// One network, the exact contract of learn::train_gradient_descent (full batch when
// config.batch_size is 0 or covers the data, else shuffled mini-batches drawn from `rng` in the same
// order, mean logistic loss per batch, EWC penalty step with each), on libtorch autograd. Per
// batch it costs ~15 tensor operations, so it suits mini-batches of real images; many tiny
// full-batch networks train faster together with train_full_batch_torch.
GdResult train_gradient_descent_torch(PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                                      const QuadraticPenalty* penalty, Rng& rng);

// Diagonal Fisher of `kind` (learn/patch_cnn.h), with exact per-sample gradients from one autograd
// pass (the weights are expanded per sample). Same definition as PatchCnn::fisher_diagonal.
Matrix fisher_diagonal_torch(const PatchCnn& net, const PatchDataset& data, FisherKind kind);

}  // namespace dmlkit::learn
