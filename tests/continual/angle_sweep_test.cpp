// Tests of the signal-noise generator and the angle sweep (spec B.2-B.5).
#include <gtest/gtest.h>

#include <cmath>

#include "continual/angle_sweep.h"
#include "continual/signal_noise.h"
#include "core/error.h"

namespace dmlkit::continual {
namespace {

TEST(SignalNoise, SignalsHaveTheRequestedAngleAndNorm) {
  SignalNoiseConfig c;
  for (double angle : {0.0, 30.0, 90.0, 137.0, 180.0}) {
    const auto mu1 = task_signal(c, 0.0), mu2 = task_signal(c, angle);
    double n2 = 0;
    for (float v : mu2) n2 += v * v;
    EXPECT_NEAR(std::sqrt(n2), 8.0, 1e-5);
    EXPECT_NEAR(angle_deg(mu1, mu2), angle, 1e-3);
  }
}

TEST(SignalNoise, EachSampleHasOneSignalPatchAndGaussianNoise) {
  SignalNoiseConfig c;
  c.noise_std = 2.0;
  Rng rng(11);
  const auto mu = task_signal(c, 40.0);
  const auto d = generate_task(c, mu, 400, rng);
  ASSERT_EQ(d.size(), 400u);
  int signal_first = 0, positives = 0;
  double noise_sq = 0;
  long noise_count = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const float y = d.labels[i];
    ASSERT_TRUE(y == 1.0f || y == -1.0f);
    positives += y > 0;
    int signal_patches = 0;
    for (int p = 0; p < 2; ++p) {
      const auto x = d.patch(i, p);
      bool is_signal = true;
      for (int k = 0; k < c.patch_len; ++k) is_signal = is_signal && x[k] == y * mu[static_cast<size_t>(k)];
      if (is_signal) {
        ++signal_patches;
        signal_first += p == 0;
      } else {
        noise_sq += x.squaredNorm();
        noise_count += c.patch_len;
      }
    }
    EXPECT_EQ(signal_patches, 1);
  }
  EXPECT_NEAR(std::sqrt(noise_sq / static_cast<double>(noise_count)), 2.0, 0.05);  // noise std
  EXPECT_GT(signal_first, 150);                                                    // the patch order is permuted
  EXPECT_LT(signal_first, 250);
  EXPECT_GT(positives, 150);
  EXPECT_LT(positives, 250);
}

TEST(SignalNoise, OrthogonalNoiseHasNoSignalComponent) {
  SignalNoiseConfig c;
  c.noise_orthogonal = true;
  Rng rng(2);
  const auto d = generate_task(c, task_signal(c, 0.0), 50, rng);
  int noise_patches = 0;
  for (size_t i = 0; i < d.size(); ++i)
    for (int p = 0; p < 2; ++p) {
      const auto x = d.patch(i, p);
      if (std::fabs(x[0]) == 8.0f) continue;  // the signal patch (+-8 e_1)
      ++noise_patches;
      EXPECT_EQ(x[0], 0.0f);  // noise patch: both signal-plane coordinates zero
      EXPECT_EQ(x[1], 0.0f);
      EXPECT_GT(x.squaredNorm(), 0.0f);
    }
  EXPECT_EQ(noise_patches, 50);
}

TEST(AngleSweep, ParsesRangesAndLists) {
  EXPECT_EQ(parse_angles("0:180:1").size(), 181u);
  EXPECT_EQ(parse_angles("160,30"), (std::vector<double>{30, 160}));
  EXPECT_THROW(parse_angles("0:abc:1"), Error);
  EXPECT_THROW(parse_angles("200"), Error);
  EXPECT_THROW(parse_angles("10:0:1"), Error);
  EXPECT_THROW(parse_variant("sgd"), Error);
}

TEST(AngleSweep, CriticalAngleInterpolatesTheFirstCrossing) {
  EXPECT_DOUBLE_EQ(*critical_angle({100, 110, 120}, {0.0, 0.2, 0.8}, 0.5), 115.0);
  EXPECT_FALSE(critical_angle({0, 90}, {0.0, 0.1}, 0.5).has_value());
}

// The paper's claims (spec B.5) on a small fixed-seed sweep with the code's settings.
TEST(AngleSweep, AcuteAngleIsBenignLargeObtuseIsHarmfulAndReplayHelps) {
  AngleSweepConfig c;
  c.angles_deg = {30, 140, 160};
  c.variants = {Variant::cl, Variant::replay};
  c.data.test_per_task = 400;
  c.seed = 5;
  const auto r = run_angle_sweep(c);
  EXPECT_LT(r.task1_test_error_mean, 0.05);  // task 1 was learned
  auto point = [&](Variant v, double a) {
    for (const auto& p : r.points)
      if (p.variant == v && p.angle_deg == a) return p;
    ADD_FAILURE() << "missing point";
    return SweepPoint{};
  };
  EXPECT_LT(point(Variant::cl, 30).error_mean, 0.05);
  EXPECT_GT(point(Variant::cl, 160).error_mean, 0.8);
  // Replay keeps task 1 at 140 degrees, where plain sequential training forgets it.
  EXPECT_GT(point(Variant::cl, 140).error_mean, 0.5);
  EXPECT_LT(point(Variant::replay, 140).error_mean, point(Variant::cl, 140).error_mean - 0.3);
  EXPECT_LT(point(Variant::replay, 160).error_mean, point(Variant::cl, 160).error_mean);
  EXPECT_LT(point(Variant::cl, 160).task2_error_mean, 0.05);  // task 2 itself is learned
}

TEST(AngleSweep, ResultsDoNotDependOnThreadsOrOnOtherAngles) {
  AngleSweepConfig c;
  c.epochs = 300;
  c.data.test_per_task = 200;
  c.variants = {Variant::cl, Variant::ewc};
  c.seeds = 2;
  c.angles_deg = {120, 150};
  c.threads = 1;
  const auto a = run_angle_sweep(c);
  c.threads = 2;
  c.angles_deg = {150};
  size_t calls = 0, last_done = 0, total = 0;
  const auto b = run_angle_sweep(c, [&](size_t done, size_t all) {
    ++calls;
    last_done = done;
    total = all;
  });
  EXPECT_EQ(total, 6u);  // 2 task-1 networks + 2 seeds x 1 angle x 2 variants
  EXPECT_GE(calls, 2u);
  EXPECT_EQ(last_done, 6u);
  for (const auto& rb : b.runs) {
    bool found = false;
    for (const auto& ra : a.runs)
      if (ra.variant == rb.variant && ra.angle_deg == rb.angle_deg && ra.seed_index == rb.seed_index) {
        EXPECT_EQ(ra.task1_error_after, rb.task1_error_after);
        EXPECT_EQ(ra.task2_error, rb.task2_error);
        found = true;
      }
    EXPECT_TRUE(found);
  }
}

// A seed's records are the same bits whichever other seeds train beside it (in the same batch
// tensors), for every variant, both Fisher definitions and both EWC steps, on both backends.
TEST(AngleSweep, ASeedDoesNotDependOnItsBatchMates) {
  struct Ewc {
    learn::FisherKind fisher;
    learn::PenaltyStep step;
  };
  for (TrainBackend backend : {TrainBackend::torch, TrainBackend::eigen})
    for (Ewc ewc : {Ewc{learn::FisherKind::empirical_sum, learn::PenaltyStep::gradient},
                    Ewc{learn::FisherKind::expected_mean, learn::PenaltyStep::proximal}}) {
      SCOPED_TRACE(backend_name(backend) + " " + learn::fisher_kind_name(ewc.fisher));
      AngleSweepConfig c;
      c.epochs = backend == TrainBackend::torch ? 300 : 100;
      c.data.test_per_task = 200;
      c.angles_deg = {150, 175};
      c.fisher = ewc.fisher;
      c.ewc_step = ewc.step;
      c.backend = backend;
      c.seeds = 1;
      const auto alone = run_angle_sweep(c);
      c.seeds = 4;
      c.chunk_models = 5;  // several chunks, the seed's networks at other positions
      const auto mates = run_angle_sweep(c);
      ASSERT_EQ(alone.runs.size(), 8u);
      for (const auto& a : alone.runs) {
        SCOPED_TRACE(variant_name(a.variant) + " " + std::to_string(a.angle_deg));
        const auto& b = mates.runs[static_cast<size_t>(&a - alone.runs.data())];  // seed 0 comes first
        ASSERT_EQ(b.seed_index, 0);
        ASSERT_EQ(a.variant, b.variant);
        ASSERT_EQ(a.angle_deg, b.angle_deg);
        EXPECT_EQ(a.task1_error_before, b.task1_error_before);
        EXPECT_EQ(a.task1_error_after, b.task1_error_after);
        EXPECT_EQ(a.task2_error, b.task2_error);
        EXPECT_EQ(a.diverged, b.diverged);
      }
    }
}

// The libtorch backend and the hand-written Eigen reference train the same networks.
TEST(AngleSweep, TorchAndEigenBackendsAgree) {
  AngleSweepConfig c;
  c.epochs = 3000;  // the default: a task-1 model fitted as in the sweep, so that lambda = 1e6 EWC steps are stable
  c.data.test_per_task = 400;
  c.angles_deg = {60, 150};
  c.seed = 3;
  c.backend = TrainBackend::torch;
  const auto a = run_angle_sweep(c);
  c.backend = TrainBackend::eigen;
  const auto b = run_angle_sweep(c);
  ASSERT_EQ(a.runs.size(), b.runs.size());
  ASSERT_EQ(a.runs.size(), 8u);
  for (size_t i = 0; i < a.runs.size(); ++i) {
    SCOPED_TRACE(variant_name(a.runs[i].variant) + " " + std::to_string(a.runs[i].angle_deg));
    EXPECT_EQ(a.runs[i].variant, b.runs[i].variant);
    EXPECT_NEAR(a.runs[i].task1_error_after, b.runs[i].task1_error_after, 0.0051);  // at most 2 of 400 samples
    EXPECT_NEAR(a.runs[i].task2_error, b.runs[i].task2_error, 0.0051);
    EXPECT_EQ(a.runs[i].diverged, b.runs[i].diverged);
  }
  EXPECT_EQ(parse_backend("eigen"), TrainBackend::eigen);
  EXPECT_THROW(parse_backend("tensorflow"), Error);
}

TEST(AngleSweep, RejectsBadConfig) {
  AngleSweepConfig c;
  c.angles_deg = {30};
  c.replay_fraction = 1.5;
  EXPECT_THROW(run_angle_sweep(c), Error);
  c.replay_fraction = 0.1;
  c.data.num_patches = 1;
  EXPECT_THROW(run_angle_sweep(c), Error);
}

}  // namespace
}  // namespace dmlkit::continual
