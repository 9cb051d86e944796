// The signal-noise data model of "Angle Matters" (Wan et al., ICML 2025; Cao et al. 2022): a binary
// task k has a signal vector mu_k; a sample has label y uniform in {+1,-1} and P patches, one of
// which is y * mu_k and the others Gaussian noise xi ~ N(0, noise_std^2 I_d); the patch order is
// permuted per sample. Task 1's signal is signal_norm * e_1 and task 2's is task 1's rotated by the
// angle theta in the (e_1, e_2) plane, so cos(theta) = <mu_1, mu_2> / (|mu_1| |mu_2|).
// Defaults follow the official code (synthetic/cl_cnn_replay_ewc.py): d = 100, P = 2, |mu| = 8,
// noise std 1 (isotropic), 100 training and 1000 test samples per task.
#pragma once
#include <vector>

#include "core/rng.h"
#include "learn/patch_dataset.h"

namespace dmlkit::continual {

struct SignalNoiseConfig {
  int patch_len = 100;       // d (>= 2 so the rotation plane exists)
  int num_patches = 2;       // P (one signal patch, P-1 noise patches)
  double signal_norm = 8.0;  // |mu_k|
  double noise_std = 1.0;    // per-coordinate std of xi
  int train_per_task = 100;
  int test_per_task = 1000;
  // [A] The paper's analysis takes noise orthogonal to every task signal; the official code draws
  // isotropic noise. true projects each xi onto the complement of span(e_1, e_2).
  bool noise_orthogonal = false;
  void validate() const;  // throws dmlkit::Error naming the bad field
};

// signal_norm * (cos(theta) e_1 + sin(theta) e_2), theta in degrees.
std::vector<float> task_signal(const SignalNoiseConfig& config, double angle_deg);

// n samples of the task with signal `mu`, drawn from `rng`.
learn::PatchDataset generate_task(const SignalNoiseConfig& config, const std::vector<float>& mu, int n, Rng& rng);

// The angle between two vectors in degrees (0 for a zero vector).
double angle_deg(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace dmlkit::continual
