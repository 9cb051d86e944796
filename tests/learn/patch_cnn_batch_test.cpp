// The libtorch batched trainer against the hand-written Eigen reference: same trained weights
// (float tolerance) with either EWC step, same Fisher diagonals, results independent of batch
// mates (bit for bit) and threads, divergence detected, bad jobs rejected.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "learn/patch_cnn_batch.h"
#include "learn/train_backend.h"

namespace dmlkit::learn {
namespace {

PatchCnnShape small_patch_shape() {
  PatchCnnShape s;
  s.patch_len = 8;
  s.filters_per_class = 3;
  s.power_q = 3;
  return s;
}

// n samples of P = 2 patches of length d: one signal patch y * mu (mu along axis 0 rotated by
// `turn`), one Gaussian noise patch; duplicates merged as in the signal-noise data.
PatchDataset make_data(size_t n, double turn, uint64_t seed, int d = 8, float signal = 3.0f, double noise_std = 0.5) {
  Rng rng(seed);
  Matrix patches(static_cast<Eigen::Index>(2 * n), d);
  std::vector<float> labels(n);
  for (size_t i = 0; i < n; ++i) {
    const float y = rng.uniform(0, 1) < 0.5 ? -1.0f : 1.0f;
    labels[i] = y;
    auto sig = patches.row(static_cast<Eigen::Index>(2 * i));
    sig.setZero();
    sig[0] = y * signal * static_cast<float>(std::cos(turn));
    sig[1] = y * signal * static_cast<float>(std::sin(turn));
    auto noise = patches.row(static_cast<Eigen::Index>(2 * i + 1));
    for (int k = 0; k < d; ++k) noise[k] = static_cast<float>(rng.normal(0, noise_std));
  }
  return PatchDataset::from_patches(patches, 2, labels);
}

double max_abs_diff(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

TEST(PatchCnnBatch, MatchesTheEigenReferenceWithAndWithoutEwc) {
  const auto data1 = make_data(40, 0.0, 1);
  const auto data2 = make_data(40, 2.0, 2);
  const auto data3 = make_data(25, 1.0, 3);  // another shape: its own group
  Rng init(7);
  const PatchCnn start(small_patch_shape(), init);
  GdConfig gd;
  gd.learning_rate = 0.05;
  gd.epochs = 200;
  const Matrix fisher = start.fisher_diagonal(data1, FisherKind::expected_mean);
  // Gradient step: lr lambda F = 1 for the largest F (the penalty alone is stable below 2).
  QuadraticPenalty ewc{start.weights(), fisher, 1.0 / (gd.learning_rate * fisher.maxCoeff()), PenaltyStep::gradient};
  QuadraticPenalty prox = ewc;
  prox.step = PenaltyStep::proximal;
  prox.lambda = 10 * ewc.lambda;  // far beyond the explicit step's range

  std::vector<PatchCnn> ref(4, start), bat(4, start);
  const PatchDataset* sets[4] = {&data1, &data2, &data3, &data2};
  const QuadraticPenalty* pens[4] = {nullptr, &ewc, nullptr, &prox};
  Rng unused(0);
  std::vector<GdResult> ref_res;
  for (int k = 0; k < 4; ++k) ref_res.push_back(train_gradient_descent(ref[k], *sets[k], gd, pens[k], unused));
  std::vector<PatchCnnTrainJob> jobs;
  for (int k = 0; k < 4; ++k) jobs.push_back({&bat[k], sets[k], pens[k]});
  const auto res = train_full_batch_torch(jobs, gd);
  ASSERT_EQ(res.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    EXPECT_FALSE(res[k].diverged);
    EXPECT_EQ(res[k].epochs_run, 200);
    EXPECT_GT(max_abs_diff(bat[k].weights(), start.weights()), 1e-2);  // it trained
    EXPECT_LT(max_abs_diff(bat[k].weights(), ref[k].weights()), 1e-4);
    EXPECT_NEAR(res[k].final_loss, ref_res[k].final_loss, 1e-5);
  }
  // The EWC jobs stayed closer to their anchor (in the Fisher-weighted distance) than the same
  // data would without the penalty, the ten times stronger one closer still.
  PatchCnn free = start;
  train_gradient_descent(free, data2, gd, nullptr, unused);
  EXPECT_LT(ewc.value(bat[1].weights()), ewc.value(free.weights()));
  EXPECT_LT(ewc.value(bat[3].weights()), ewc.value(bat[1].weights()));
}

// One network with shuffled mini-batches (and with the full batch): the libtorch trainer draws the
// same batches from the Rng as the Eigen reference and ends at the same weights.
TEST(PatchCnnTorch, MiniBatchTrainingMatchesTheEigenReference) {
  const auto data = make_data(45, 0.4, 21);
  Rng init(13);
  const PatchCnn start(small_patch_shape(), init);
  const Matrix fisher = start.fisher_diagonal(data, FisherKind::empirical_sum);
  QuadraticPenalty ewc{start.weights(), fisher, 0.5 / (0.05 * fisher.maxCoeff()), PenaltyStep::gradient};
  QuadraticPenalty prox{start.weights(), start.fisher_diagonal(data, FisherKind::expected_mean), 20.0,
                        PenaltyStep::proximal};
  for (size_t batch : {size_t{0}, size_t{8}}) {
    const std::vector<const QuadraticPenalty*> penalties = {nullptr, &ewc, &prox};
    for (const QuadraticPenalty* pen : penalties) {
      SCOPED_TRACE("batch " + std::to_string(batch) + (pen ? " with EWC " + penalty_step_name(pen->step) : ""));
      GdConfig gd;
      gd.learning_rate = 0.05;
      gd.epochs = 40;
      gd.batch_size = batch;
      PatchCnn a = start, b = start;
      Rng ra(99), rb(99);
      const auto res_eigen = train_gradient_descent(a, data, gd, pen, ra);
      const auto res_torch = train_patch_cnn(TrainBackend::torch, b, data, gd, pen, rb);
      EXPECT_FALSE(res_torch.diverged);
      EXPECT_EQ(res_torch.epochs_run, 40);
      EXPECT_GT(max_abs_diff(b.weights(), start.weights()), 1e-2);
      EXPECT_LT(max_abs_diff(a.weights(), b.weights()), 1e-4);
      EXPECT_NEAR(res_eigen.final_loss, res_torch.final_loss, 1e-5);
      EXPECT_EQ(ra.uniform_int(0, 1000000), rb.uniform_int(0, 1000000));  // same draws consumed
    }
  }
  PatchCnn wild = start;
  PatchDataset huge = data;
  huge.unique_patches *= 1e6f;
  GdConfig gd;
  gd.batch_size = 8;
  gd.epochs = 20;
  Rng r(1);
  const auto res = train_patch_cnn(TrainBackend::torch, wild, huge, gd, nullptr, r);
  EXPECT_TRUE(res.diverged);
  EXPECT_EQ(res.epochs_run, 1);  // stopped in the first epoch
  EXPECT_EQ(parse_backend("torch"), TrainBackend::torch);
  EXPECT_EQ(backend_name(TrainBackend::eigen), "eigen");
  EXPECT_THROW(parse_backend("jax"), Error);
}

TEST(PatchCnnBatch, ANetworkDoesNotDependOnItsBatchMatesOrThreads) {
  const auto target = make_data(30, 0.5, 11);
  std::vector<PatchDataset> others;
  for (uint64_t s = 0; s < 9; ++s) others.push_back(make_data(30, 0.3 * static_cast<double>(s), 100 + s));
  Rng init(3);
  const PatchCnn start(small_patch_shape(), init);
  GdConfig gd;
  gd.learning_rate = 0.05;
  gd.epochs = 100;
  PatchCnn alone = start;
  train_full_batch_torch({{&alone, &target, nullptr}}, gd);
  for (int threads : {1, 2}) {
    for (int chunk : {4, 16}) {
      std::vector<PatchCnn> nets(others.size() + 1, start);
      std::vector<PatchCnnTrainJob> jobs;
      for (size_t k = 0; k < others.size(); ++k) jobs.push_back({&nets[k], &others[k], nullptr});
      jobs.push_back({&nets.back(), &target, nullptr});
      BatchTrainConfig bc;
      bc.threads = threads;
      bc.chunk_models = chunk;
      train_full_batch_torch(jobs, gd, bc);
      EXPECT_TRUE(nets.back().weights() == alone.weights()) << "threads " << threads << " chunk " << chunk;
    }
  }
}

// The sweep's shapes (d = 100, m = 10, 100 samples of 2 patches: 102 unique patches) and strong
// EWC penalties: a network alone and in batches of 2 to 5 at every position ends at the same bits,
// for each penalty step. Before the per-network loss rows were padded, the last network of a
// batch ran some samples through ATen's scalar softplus and the results depended on the batch size.
TEST(PatchCnnBatch, ANetworkIsBitIdenticalAloneAndAtEveryPositionOfABatch) {
  PatchCnnShape shape;
  shape.patch_len = 100;
  shape.filters_per_class = 10;
  const auto task1 = make_data(100, 0.0, 31, 100, 8.0f, 1.0);
  std::vector<PatchDataset> sets;
  for (uint64_t k = 0; k < 5; ++k)
    sets.push_back(make_data(100, 3.0 - 0.01 * static_cast<double>(k), 40 + k, 100, 8.0f, 1.0));
  Rng init(5);
  PatchCnn start(shape, init);
  GdConfig gd;
  gd.learning_rate = 0.01;
  gd.epochs = 60;
  Rng unused(0);
  train_gradient_descent(start, task1, gd, nullptr, unused);  // a task-1 model to anchor EWC on
  const Matrix fisher = fisher_diagonal_torch(start, task1, FisherKind::empirical_sum);
  // lr lambda F = 0.5 for the largest F (with the data loss's curvature on top, 1.5 diverges).
  const QuadraticPenalty grad_ewc{start.weights(), fisher, 0.5 / (gd.learning_rate * fisher.maxCoeff()),
                                  PenaltyStep::gradient};
  const QuadraticPenalty prox_ewc{start.weights(), fisher_diagonal_torch(start, task1, FisherKind::expected_mean), 1e6,
                                  PenaltyStep::proximal};
  gd.epochs = 40;
  const std::vector<const QuadraticPenalty*> penalties = {nullptr, &grad_ewc, &prox_ewc};
  for (const QuadraticPenalty* pen : penalties) {
    SCOPED_TRACE(pen ? penalty_step_name(pen->step) : "no penalty");
    std::vector<Matrix> alone;
    for (const auto& set : sets) {
      PatchCnn net = start;
      ASSERT_FALSE(train_full_batch_torch({{&net, &set, pen}}, gd)[0].diverged);
      alone.push_back(net.weights());
    }
    for (size_t size = 2; size <= sets.size(); ++size) {
      std::vector<PatchCnn> nets(size, start);
      std::vector<PatchCnnTrainJob> jobs;
      for (size_t k = 0; k < size; ++k) jobs.push_back({&nets[k], &sets[k], pen});
      train_full_batch_torch(jobs, gd);
      for (size_t k = 0; k < size; ++k)
        EXPECT_TRUE(nets[k].weights() == alone[k]) << "batch " << size << " position " << k;
    }
  }
}

TEST(PatchCnnBatch, FisherMatchesTheHandWrittenDiagonal) {
  const auto data = make_data(50, 0.7, 5);
  Rng init(9);
  PatchCnn net(small_patch_shape(), init);
  GdConfig gd;
  gd.learning_rate = 0.05;
  gd.epochs = 100;
  Rng unused(0);
  train_gradient_descent(net, data, gd, nullptr, unused);
  for (FisherKind kind : {FisherKind::empirical_sum, FisherKind::expected_mean}) {
    SCOPED_TRACE(fisher_kind_name(kind));
    const Matrix a = net.fisher_diagonal(data, kind);
    const Matrix b = fisher_diagonal_torch(net, data, kind);
    ASSERT_EQ(a.rows(), b.rows());
    ASSERT_EQ(a.cols(), b.cols());
    EXPECT_GT(a.maxCoeff(), 1e-4);
    EXPECT_LT(max_abs_diff(a, b), 1e-5 * a.maxCoeff());
  }
}

TEST(PatchCnnBatch, FlagsADivergingNetworkOnly) {
  const auto data = make_data(20, 0.0, 4);
  Rng init(1);
  const PatchCnn start(small_patch_shape(), init);
  PatchCnn calm = start, wild = start;
  QuadraticPenalty none{start.weights(), Matrix::Zero(6, 8), 0.0};
  GdConfig gd;
  gd.learning_rate = 0.05;
  gd.epochs = 130;
  // Scaling one network's data by 1e6 makes its cubic activations overflow float.
  PatchDataset huge = data;
  huge.unique_patches *= 1e6f;
  BatchTrainConfig bc;
  bc.divergence_check_epochs = 10;
  const auto res = train_full_batch_torch({{&calm, &data, &none}, {&wild, &huge, nullptr}}, gd, bc);
  EXPECT_FALSE(res[0].diverged);
  EXPECT_EQ(res[0].epochs_run, 130);
  EXPECT_TRUE(res[1].diverged);
  EXPECT_LE(res[1].epochs_run, 10);
}

TEST(PatchCnnBatch, RejectsMixedShapesAndMiniBatches) {
  const auto data = make_data(10, 0.0, 4);
  Rng init(1);
  PatchCnn a(small_patch_shape(), init);
  PatchCnnShape other = small_patch_shape();
  other.filters_per_class = 2;
  PatchCnn b(other, init);
  GdConfig gd;
  gd.epochs = 1;
  EXPECT_THROW(train_full_batch_torch({{&a, &data, nullptr}, {&b, &data, nullptr}}, gd), std::invalid_argument);
  gd.batch_size = 4;
  EXPECT_THROW(train_full_batch_torch({{&a, &data, nullptr}}, gd), std::invalid_argument);
  gd.batch_size = 0;
  EXPECT_THROW(train_full_batch_torch({{&a, nullptr, nullptr}}, gd), std::invalid_argument);
}

}  // namespace
}  // namespace dmlkit::learn
