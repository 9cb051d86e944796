// Tests of the patch CNN: forward pass against a hand computation, gradient against finite
// differences, Fisher diagonal against its definition, and gradient descent with an EWC penalty.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "learn/gradient_descent.h"
#include "learn/patch_cnn.h"

namespace dmlkit::learn {
namespace {

// Two samples, P = 2 patches of length 2, m = 1 filter per class, q = 3.
PatchDataset tiny_data() {
  Matrix patches(4, 2);
  patches << 1, 0,  // sample 0 patch 0
      0, 2,         // sample 0 patch 1
      -1, 1,        // sample 1 patch 0
      1, 0;         // sample 1 patch 1 (duplicate of row 0: merged)
  return PatchDataset::from_patches(patches, 2, {1.0f, -1.0f});
}

PatchCnn tiny_net() {
  Matrix w(2, 2);
  w << 1.0f, 0.5f,  // class +1 filter
      -0.5f, 1.0f;  // class -1 filter
  PatchCnnShape s;
  s.patch_len = 2;
  s.filters_per_class = 1;
  s.power_q = 3;
  return PatchCnn(s, w);
}

TEST(PatchDataset, MergesDuplicatePatches) {
  const auto d = tiny_data();
  EXPECT_EQ(d.size(), 2u);
  EXPECT_EQ(d.unique_patches.rows(), 3);
  EXPECT_EQ(d.patch_row[0], d.patch_row[3]);
  EXPECT_FLOAT_EQ(d.patch(1, 0)[0], -1.0f);
}

TEST(PatchCnn, ForwardMatchesHandComputation) {
  // Sample 0: patch (1,0): <w+,x> = 1 -> 1; <w-,x> = -0.5 -> 0.  patch (0,2): <w+,x> = 1 -> 1;
  //   <w-,x> = 2 -> 8.  F+ = (1+1)/2 = 1, F- = (0+8)/2 = 4, f = -3.
  // Sample 1: patch (-1,1): <w+,x> = -0.5 -> 0; <w-,x> = 1.5 -> 3.375.  patch (1,0): 1 -> 1; 0.
  //   F+ = 0.5, F- = 1.6875, f = -1.1875.
  const auto f = tiny_net().outputs(tiny_data());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NEAR(f[0], -3.0, 1e-6);
  EXPECT_NEAR(f[1], -1.1875, 1e-6);
  EXPECT_DOUBLE_EQ(tiny_net().error(tiny_data()), 0.5);  // sample 0 (y=+1) wrong, sample 1 right
  // Loss: mean of log(1+exp(3)) and log(1+exp(-1.1875)).
  const double want = 0.5 * (std::log1p(std::exp(3.0)) + std::log1p(std::exp(-1.1875)));
  EXPECT_NEAR(tiny_net().loss_and_grad(tiny_data(), nullptr), want, 1e-6);
}

TEST(PatchCnn, OutputScaleMultipliesTheMargin) {
  Matrix w(2, 2);
  w << 1.0f, 0.5f, -0.5f, 1.0f;
  PatchCnnShape s;
  s.patch_len = 2;
  s.filters_per_class = 1;
  s.output_scale = 0.25f;
  EXPECT_NEAR(PatchCnn(s, w).outputs(tiny_data())[0], -0.75, 1e-6);
}

TEST(PatchCnn, GradientMatchesFiniteDifferences) {
  Rng rng(7);
  PatchCnnShape s;
  s.patch_len = 5;
  s.filters_per_class = 3;
  Matrix patches(12, 5);
  for (Eigen::Index i = 0; i < patches.size(); ++i) patches.data()[i] = static_cast<float>(rng.normal(0, 1));
  const auto data = PatchDataset::from_patches(patches, 3, {1, -1, 1, -1});
  PatchCnn net(s, rng);
  net.weights() *= 5.0f;  // larger activations so ReLU^3 is well inside its smooth region
  Matrix grad;
  net.loss_and_grad(data, &grad);
  const float h = 1e-3f;
  for (Eigen::Index r = 0; r < grad.rows(); ++r)
    for (Eigen::Index k = 0; k < grad.cols(); ++k) {
      PatchCnn plus = net, minus = net;
      plus.weights()(r, k) += h;
      minus.weights()(r, k) -= h;
      const double fd = (plus.loss_and_grad(data, nullptr) - minus.loss_and_grad(data, nullptr)) / (2.0 * h);
      EXPECT_NEAR(grad(r, k), fd, 2e-3 + 2e-2 * std::fabs(fd)) << r << "," << k;
    }
}

TEST(PatchCnn, FisherDiagonalIsMeanOfWeightedSquaredOutputGradients) {
  // One sample: Fisher = p(1-p) (df/dw)^2. Sample 1 of the tiny case alone.
  Matrix patches(2, 2);
  patches << -1, 1, 1, 0;
  const auto data = PatchDataset::from_patches(patches, 2, {-1.0f});
  const auto net = tiny_net();
  const double f = -1.1875, p = 1.0 / (1.0 + std::exp(-f));
  // df/dw+ = (1/2) * 3 * 1^2 * (1,0) (only patch (1,0) active) = (1.5, 0)
  // df/dw- = -(1/2) * 3 * 1.5^2 * (-1,1) = (3.375, -3.375)
  const Matrix F = net.fisher_diagonal(data, FisherKind::expected_mean);
  const double wpq = p * (1 - p);
  EXPECT_NEAR(F(0, 0), wpq * 1.5 * 1.5, 1e-5);
  EXPECT_NEAR(F(0, 1), 0.0, 1e-7);
  EXPECT_NEAR(F(1, 0), wpq * 3.375 * 3.375, 1e-4);
  EXPECT_NEAR(F(1, 1), wpq * 3.375 * 3.375, 1e-4);
}

// The official code's Fisher: squared gradients of log P(y_i | x_i), summed over the samples.
TEST(PatchCnn, EmpiricalFisherSumsSquaredLogLikelihoodGradients) {
  const auto data = tiny_data();
  const auto net = tiny_net();
  // d log P(y|x) / dw = y sigmoid(-y f) df/dw. Sample 0 (y = +1, f = -3): patch (1,0) activates w+
  // only (<w+,x> = 1), patch (0,2) both (<w+,x> = 1, <w-,x> = 2):
  //   df/dw+ = (1/2) 3 (1 (1,0) + 1 (0,2)) = (1.5, 3);  df/dw- = -(1/2) 3 (4 (0,2)) = (0, -12).
  // Sample 1 (y = -1, f = -1.1875): df/dw+ = (1.5, 0), df/dw- = (3.375, -3.375) (as above).
  const double s0 = 1.0 / (1.0 + std::exp(-3.0));    // sigmoid(-y f) = sigmoid(3)
  const double s1 = 1.0 / (1.0 + std::exp(1.1875));  // sigmoid(-1.1875)
  const Matrix F = net.fisher_diagonal(data, FisherKind::empirical_sum);
  EXPECT_NEAR(F(0, 0), s0 * s0 * 1.5 * 1.5 + s1 * s1 * 1.5 * 1.5, 1e-4);
  EXPECT_NEAR(F(0, 1), s0 * s0 * 3.0 * 3.0, 1e-4);
  EXPECT_NEAR(F(1, 0), s1 * s1 * 3.375 * 3.375, 1e-4);
  EXPECT_NEAR(F(1, 1), s0 * s0 * 12.0 * 12.0 + s1 * s1 * 3.375 * 3.375, 1e-3);
  // A sum, not a mean: the same data twice doubles it.
  const auto twice = PatchDataset::concat(data, data);
  EXPECT_LT((net.fisher_diagonal(twice, FisherKind::empirical_sum) - 2.0f * F).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_EQ(parse_fisher_kind("empirical-sum"), FisherKind::empirical_sum);
  EXPECT_EQ(fisher_kind_name(parse_fisher_kind("expected-mean")), "expected-mean");
  EXPECT_THROW(parse_fisher_kind("bogus"), Error);
}

TEST(GradientDescent, LowersTheLossAndAStrongPenaltyHoldsWeights) {
  Rng rng(3);
  auto data = tiny_data();
  PatchCnn net = tiny_net();
  const double before = net.loss_and_grad(data, nullptr);
  GdConfig gd;
  gd.learning_rate = 0.01;
  gd.epochs = 200;
  PatchCnn free = net;
  const auto res = train_gradient_descent(free, data, gd, nullptr, rng);
  EXPECT_FALSE(res.diverged);
  EXPECT_LT(res.final_loss, before);
  // A huge penalty with unit precision keeps the weights at the anchor (and stays finite) with the
  // proximal step.
  QuadraticPenalty pen{net.weights(), Matrix::Ones(2, 2), 1e9, PenaltyStep::proximal};
  PatchCnn held = net;
  const auto res2 = train_gradient_descent(held, data, gd, &pen, rng);
  EXPECT_FALSE(res2.diverged);
  EXPECT_LT((held.weights() - net.weights()).cwiseAbs().maxCoeff(), 1e-4);
  // Mini-batches run and also lower the loss.
  gd.batch_size = 1;
  PatchCnn mb = net;
  EXPECT_LT(train_gradient_descent(mb, data, gd, nullptr, rng).final_loss, before);
}

// The gradient (official) step: one step is w - lr (grad + lambda F (w - w*)); it diverges once
// lr lambda F > 2 and holds the weights near the anchor below that.
TEST(GradientDescent, GradientPenaltyStepIsPlainGradientDescentOnLossPlusPenalty) {
  const auto data = tiny_data();
  const PatchCnn net = tiny_net();
  Matrix anchor(2, 2);
  anchor << 0.5f, 0.0f, 0.0f, 0.5f;
  Matrix F(2, 2);
  F << 1.0f, 2.0f, 0.5f, 0.0f;
  const QuadraticPenalty pen{anchor, F, 3.0, PenaltyStep::gradient};
  GdConfig gd;
  gd.learning_rate = 0.01;
  gd.epochs = 1;
  Rng rng(1);
  PatchCnn stepped = net;
  train_gradient_descent(stepped, data, gd, &pen, rng);
  Matrix grad;
  net.loss_and_grad(data, &grad);
  const Matrix want =
      net.weights() - 0.01f * (grad + Matrix((3.0f * F.array() * (net.weights() - anchor).array()).matrix()));
  EXPECT_LT((stepped.weights() - want).cwiseAbs().maxCoeff(), 1e-6);
  // lr lambda F = 0.01 * 1e3 * 1 = 10 > 2: the explicit step oscillates with growing amplitude.
  const QuadraticPenalty strong{anchor, Matrix::Ones(2, 2), 1e3, PenaltyStep::gradient};
  gd.epochs = 200;
  PatchCnn wild = net;
  EXPECT_TRUE(train_gradient_descent(wild, data, gd, &strong, rng).diverged);
  // lr lambda F = 0.5: stable, and the weights stay closer to the anchor than without the penalty.
  const QuadraticPenalty firm{anchor, Matrix::Ones(2, 2), 50.0, PenaltyStep::gradient};
  PatchCnn held = net, free = net;
  EXPECT_FALSE(train_gradient_descent(held, data, gd, &firm, rng).diverged);
  train_gradient_descent(free, data, gd, nullptr, rng);
  EXPECT_LT((held.weights() - anchor).norm(), 0.5 * (free.weights() - anchor).norm());
  EXPECT_EQ(parse_penalty_step("proximal"), PenaltyStep::proximal);
  EXPECT_EQ(penalty_step_name(PenaltyStep::gradient), "gradient");
  EXPECT_THROW(parse_penalty_step("implicit"), Error);
}

}  // namespace
}  // namespace dmlkit::learn
