// The learning blocks shared by DL2 and Harmony: learn/fifo_replay.h, learn/actor_critic.h and
// learn/regression.h (the libtorch regression loss, a fit of a known function, hold-out errors).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "learn/actor_critic.h"
#include "learn/fifo_replay.h"
#include "learn/mlp_trainer.h"
#include "learn/regression.h"

namespace dmlkit::learn {
namespace {

TEST(FifoReplay, OverwritesTheOldestAndSamplesDistinctSlots) {
  FifoReplay r(3, 2, 1);
  const unsigned char m = 1;
  for (int i = 0; i < 5; ++i) {
    const float s[2] = {static_cast<float>(i), 0};
    r.add(s, &m, i, static_cast<float>(10 * i));
  }
  EXPECT_TRUE(r.full());
  EXPECT_EQ(r.size(), 3u);
  std::set<int> kept;
  for (size_t k = 0; k < 3; ++k) kept.insert(r.action(k));
  EXPECT_EQ(kept, (std::set<int>{2, 3, 4}));  // 0 and 1 were overwritten
  Rng rng(1);
  std::vector<size_t> out;
  r.sample(10, rng, out);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(std::set<size_t>(out.begin(), out.end()).size(), 3u);
  for (size_t s : out) EXPECT_FLOAT_EQ(r.target(s), 10.0f * r.action(s));
}

TEST(ActorCritic, DiscountedReturns) {
  const auto g = discounted_returns({1, 2, 4}, 0.5);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_DOUBLE_EQ(g[2], 4);
  EXPECT_DOUBLE_EQ(g[1], 2 + 0.5 * 4);
  EXPECT_DOUBLE_EQ(g[0], 1 + 0.5 * 4);
}

// [A] Centred advantages sum to 0 (and keep their differences); the standardisation alone divides by
// the standard deviation without shifting; both give mean 0 and standard deviation 1; a single row is
// left as it is.
TEST(ActorCritic, CentredAdvantagesHaveMeanZero) {
  const std::vector<float> adv = {-90.0f, -100.0f, -110.0f, -60.0f};  // one-signed, as a lagging critic gives
  auto mean_sd = [](const std::vector<float>& v) {
    double m = 0, sq = 0;
    for (float x : v) m += x / static_cast<double>(v.size());
    for (float x : v) sq += (x - m) * (x - m) / static_cast<double>(v.size());
    return std::pair{m, std::sqrt(sq)};
  };
  std::vector<float> c = adv;
  normalize_advantages(c, true, false);
  EXPECT_NEAR(mean_sd(c).first, 0.0, 1e-5);
  EXPECT_FLOAT_EQ(c[0] - c[1], 10.0f);
  EXPECT_GT(c[3], 0.0f);  // the best action of the batch is pushed up
  EXPECT_LT(c[2], 0.0f);
  std::vector<float> s = adv;
  normalize_advantages(s, false, true);
  const double sd = mean_sd(adv).second;
  for (size_t k = 0; k < adv.size(); ++k) EXPECT_NEAR(s[k], adv[k] / sd, 1e-4);
  for (float x : s) EXPECT_LT(x, 0.0f);  // still all negative: every action pushed down
  std::vector<float> both = adv;
  normalize_advantages(both, true, true);
  EXPECT_NEAR(mean_sd(both).first, 0.0, 1e-5);
  EXPECT_NEAR(mean_sd(both).second, 1.0, 1e-4);
  std::vector<float> one = {-5.0f};
  normalize_advantages(one, true, true);
  EXPECT_EQ(one[0], -5.0f);
  std::vector<float> none = adv;
  normalize_advantages(none, false, false);
  EXPECT_EQ(none, adv);
}

// A two-armed bandit: action 1 pays 1, action 0 pays 0. Policy-gradient steps with the critic (and
// without, baseline = the batch's mean) move the probability of the better arm up.
TEST(ActorCritic, LearnsTheBetterArmWithAndWithoutCritic) {
  for (bool critic : {true, false}) {
    MlpShape ps{1, {4}, 2, false}, vs{1, {4}, 1, false};
    Rng init(3);
    auto pp = mlp_initial_parameters(ps, init);
    auto vp = mlp_initial_parameters(vs, init);
    auto pol = make_mlp_trainer(ps, pp, 0.05);
    auto val = make_mlp_trainer(vs, vp, 0.05);
    MlpForward vf(vs, vp);
    Rng rng(5);
    ActorCriticBatch b;
    const float x = 1.0f;
    const unsigned char mask[2] = {1, 1};
    for (int step = 0; step < 60; ++step) {
      b.reset(1, 2);
      MlpForward pf(ps, pol->parameters());
      std::vector<double> probs;
      std::vector<float> logits(pf.run(&x));
      masked_softmax(logits, {1, 1}, probs);
      for (int k = 0; k < 16; ++k) {
        const int a = rng.uniform() < probs[1] ? 1 : 0;
        b.add(&x, mask, a, static_cast<float>(a));
      }
      add_actor_critic_gradients(b, *pol, critic ? val.get() : nullptr, critic ? &vf : nullptr, 0.0);
      pol->step(1);
      if (critic) {
        val->step(1);
        vf = MlpForward(vs, val->parameters());
      }
    }
    MlpForward pf(ps, pol->parameters());
    std::vector<double> probs;
    std::vector<float> logits(pf.run(&x));
    masked_softmax(logits, {1, 1}, probs);
    EXPECT_GT(probs[1], 0.9) << (critic ? "with critic" : "without critic");
  }
}

// y0 = sin(x0) + x1^2 / 2, y1 = x0 x1 (a known smooth function); the second output is left out
// (weight 0) in half of the rows. The fit's hold-out error must be far below the variance of y.
TEST(Regression, FitsAKnownFunctionAndReportsHoldOutError) {
  RegressionData d;
  d.inputs = 2;
  d.outputs = 2;
  Rng rng(11);
  double mean = 0, sq = 0;
  const int n = 1200;
  for (int i = 0; i < n; ++i) {
    const float x[2] = {static_cast<float>(rng.uniform(-2, 2)), static_cast<float>(rng.uniform(-1, 1))};
    const float y[2] = {static_cast<float>(std::sin(x[0]) + x[1] * x[1] / 2), x[0] * x[1]};
    const float w[2] = {1, i % 2 == 0 ? 1.0f : 0.0f};
    d.add(x, y, w);
    mean += y[0];
    sq += y[0] * y[0];
  }
  mean /= n;
  const double var = sq / n - mean * mean;
  MlpShape s{2, {32, 32}, 2, false};
  Rng init(1);
  RegressionConfig c;
  c.epochs = 60;
  c.batch = 32;
  c.lr = 3e-3;
  c.holdout = 0.2;
  const RegressionFit fit = fit_regression(s, mlp_initial_parameters(s, init), d, c);
  EXPECT_EQ(fit.holdout_rows.size(), 240u);
  EXPECT_EQ(fit.train_rows.size(), 960u);
  EXPECT_LT(fit.holdout.mse, 0.05 * var);
  EXPECT_LT(fit.holdout_mse_curve.back(), fit.holdout_mse_curve.front());
  // Deterministic for a seed.
  Rng init2(1);
  const RegressionFit again = fit_regression(s, mlp_initial_parameters(s, init2), d, c);
  EXPECT_EQ(again.parameters, fit.parameters);
}

TEST(Regression, RejectsDataThatDoNotMatchTheNetwork) {
  RegressionData d;
  d.inputs = 3;
  d.outputs = 1;
  MlpShape s{2, {4}, 1, false};
  Rng init(1);
  EXPECT_THROW(fit_regression(s, mlp_initial_parameters(s, init), d, {}), Error);
}

}  // namespace
}  // namespace dmlkit::learn
