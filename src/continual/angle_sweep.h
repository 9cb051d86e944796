// The synthetic study of "Angle Matters" (Wan et al., ICML 2025): train the patch CNN on task 1,
// then on task 2 whose signal is at angle theta to task 1's, and measure task 1's test error after
// task 2, for theta over a grid and four variants:
//   cl          task 2 data only;
//   replay      (1 - replay_fraction) of the task-2 training set plus replay_fraction as many
//               task-1 training samples drawn at random (the code's 90 + 10);
//   ewc         task 2 only, plus (lambda/2) sum F (w - w1)^2 with F the Fisher diagonal of the
//               task-1 model on the task-1 training data: by default the official code's
//               empirical Fisher summed over the samples, stepped by plain gradient descent
//               (learn/patch_cnn.h FisherKind, learn/gradient_descent.h PenaltyStep);
//   ewc-replay  the replay mix plus the EWC penalty.
// Full-batch gradient descent on the mean logistic loss, task 2 starting from the task-1 weights.
// Every (seed, angle) run draws from Rng(seed).split(seed index) streams keyed by the angle, so a
// run's result does not depend on which other angles, seeds or variants are run beside it, on the
// torch backend's chunk size or on the thread count (tests/continual/angle_sweep_test.cpp).
// Training runs on one of two backends computing the same thing: `torch` (default) trains all
// networks of a phase at once with libtorch autograd (learn/patch_cnn_batch.h); `eigen` trains
// them one at a time with the hand-written forward/backward pass (learn/patch_cnn.h), the
// reference the torch trainer is tested against. Their results agree to float rounding.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "continual/signal_noise.h"
#include "learn/patch_cnn.h"
#include "learn/train_backend.h"

namespace dmlkit::continual {

enum class Variant { cl, replay, ewc, ewc_replay };
using learn::backend_name;
using learn::parse_backend;
using learn::TrainBackend;  // learn/train_backend.h: torch (libtorch) or eigen (reference)
const std::vector<Variant>& all_variants();
std::string variant_name(Variant v);
// Throws dmlkit::Error("", 0, "variant", ...) for an unknown name.
Variant parse_variant(const std::string& name);

struct AngleSweepConfig {
  SignalNoiseConfig data;
  int filters_per_class = 10;  // m
  int power_q = 3;             // q
  double learning_rate = 0.01;
  int epochs = 3000;  // per task
  double replay_fraction = 0.1;
  double ewc_lambda = 1e6;
  learn::FisherKind fisher = learn::FisherKind::empirical_sum;  // the official code's
  learn::PenaltyStep ewc_step = learn::PenaltyStep::gradient;   // the official code's
  // [A] forgetting is "harmful" once the mean task-1 error reaches this value; the critical angle
  // is where the error curve first crosses it (linear interpolation between grid angles).
  double harmful_error = 0.5;
  std::vector<double> angles_deg;
  std::vector<Variant> variants = all_variants();
  int seeds = 1;
  uint64_t seed = 205348320;  // the official code's seed value (a different generator, so not its draws)
  int threads = 2;
  TrainBackend backend = TrainBackend::torch;
  int chunk_models = 64;  // torch backend: networks per batch tensor (results do not depend on it)
  bool has_ewc() const;   // an ewc or ewc-replay variant is run
  void validate() const;  // throws dmlkit::Error naming the bad field
};

// One training run of one variant at one angle with one seed.
struct SweepRun {
  Variant variant = Variant::cl;
  double angle_deg = 0;
  int seed_index = 0;
  double task1_error_before = 0;  // task-1 test error after task 1
  double task1_error_after = 0;   // task-1 test error after task 2 (the paper's forgetting measure)
  double task2_error = 0;         // task-2 test error after task 2
  bool diverged = false;          // gradient descent produced a non-finite loss
};

// Aggregate over seeds of one (variant, angle).
struct SweepPoint {
  Variant variant = Variant::cl;
  double angle_deg = 0;
  int runs = 0;
  int diverged_runs = 0;
  double error_mean = 0, error_std = 0, error_min = 0, error_max = 0;  // task-1 error after task 2
  double task2_error_mean = 0;
  double forgetting_mean = 0;  // mean of (error after - error before)
};

struct VariantSummary {
  Variant variant = Variant::cl;
  std::optional<double> critical_angle_deg;  // none: never reaches harmful_error on the grid
  double max_error_mean = 0;
};

struct AngleSweepResult {
  std::vector<SweepRun> runs;           // ordered by (seed, angle, variant)
  std::vector<SweepPoint> points;       // ordered by (variant, angle)
  std::vector<VariantSummary> summary;  // one per variant, in config order
  double task1_train_error_mean = 0;    // sanity: task 1 learned
  double task1_test_error_mean = 0;
};

// Parses "0:180:1" (start:stop:step, stop included) or a list "30,160". Throws Error(field "angles").
std::vector<double> parse_angles(const std::string& text);

// Critical angle of one curve (angles ascending): see AngleSweepConfig::harmful_error.
std::optional<double> critical_angle(const std::vector<double>& angles, const std::vector<double>& errors,
                                     double threshold);

// Called as networks finish training (seeds task-1 networks, then seeds x angles x variants
// task-2 networks) with the number done and the total, serialised by a mutex; display only (it
// never affects results).
using SweepProgress = std::function<void(size_t done, size_t total)>;

AngleSweepResult run_angle_sweep(const AngleSweepConfig& config, const SweepProgress& progress = {});

}  // namespace dmlkit::continual
