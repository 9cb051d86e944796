// The attention network of learn/attn_net.h: the plain C++ forward pass agrees with the libtorch
// trainer's on padded rows of different job and server counts, is permutation-equivariant over the
// jobs, and the seq2seq regression fits a known synthetic function of a variable-length sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "learn/attn_net.h"
#include "learn/mlp.h"
#include "learn/mlp_trainer.h"
#include "learn/regression.h"

namespace dmlkit::learn {
namespace {

AttnShape shape_of(AttnHead head) {
  AttnShape s;
  s.job_features = 5;
  s.server_features = head == AttnHead::per_job ? 0 : 4;
  s.query_features = head == AttnHead::pointer ? 3 : 0;
  s.embed = 8;
  s.heads = 2;
  s.head = head;
  s.max_jobs = 7;
  s.max_servers = 6;
  return s;
}

std::vector<float> random_values(size_t n, Rng& rng) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.uniform(-1, 1));
  return v;
}

std::vector<float> row_of(const AttnShape& s, int J, int S, int q, Rng& rng) {
  const auto jx = random_values(static_cast<size_t>(J) * s.job_features, rng);
  const auto sx = random_values(static_cast<size_t>(S) * s.server_features, rng);
  const auto qx = random_values(static_cast<size_t>(s.query_features), rng);
  std::vector<float> row(static_cast<size_t>(s.inputs()));
  attn_encode(s, J, S, q, jx.data(), sx.data(), qx.data(), row.data());
  return row;
}

TEST(AttnNet, ParametersDoNotDependOnTheCounts) {
  AttnShape a = shape_of(AttnHead::pointer), b = a;
  b.max_jobs = 50;
  b.max_servers = 50;
  EXPECT_EQ(a.parameter_count(), b.parameter_count());
  EXPECT_NE(a.inputs(), b.inputs());
}

// Output o of one row from the torch trainer: loss(t = 0) - loss(t = 1) = 2 o - 1 for a squared error.
// The pointer head also with the wait target (its logit in the row's last column).
TEST(AttnNet, PlainForwardMatchesTheLibtorchTrainer) {
  Rng rng(7);
  for (auto [head, wait] : {std::pair{AttnHead::value, false}, std::pair{AttnHead::per_job, false},
                            std::pair{AttnHead::pointer, false}, std::pair{AttnHead::pointer, true}}) {
    AttnShape s = shape_of(head);
    s.wait_target = wait;
    const auto params = attn_initial_parameters(s, rng);
    auto engine = make_attn_trainer(s, params, 1e-3);
    AttnForward fwd(s, params);
    for (auto [J, S] : {std::pair{1, 1}, std::pair{3, 6}, std::pair{7, 2}}) {
      const auto row = row_of(s, J, S, J - 1, rng);
      const std::vector<float> out = fwd.run_row(row.data());
      if (head == AttnHead::value) {
        const float zero = 0, one = 1;
        const double l0 = engine->add_value_gradient(row.data(), 1, &zero).loss;
        const double l1 = engine->add_value_gradient(row.data(), 1, &one).loss;
        EXPECT_NEAR((l0 - l1 + 1) / 2, out[0], 1e-4);
      } else if (head == AttnHead::per_job) {
        for (int j = 0; j < J; ++j) {
          std::vector<float> t0(s.outputs(), 0.0f), t1(s.outputs(), 0.0f), w(s.outputs(), 0.0f);
          t1[j] = 1;
          w[j] = 1;
          const double l0 = engine->add_regression_gradient(row.data(), 1, t0.data(), w.data()).loss;
          const double l1 = engine->add_regression_gradient(row.data(), 1, t1.data(), w.data()).loss;
          EXPECT_NEAR((l0 - l1 + 1) / 2, out[j], 1e-4) << "job " << j << " of " << J;
        }
      } else {
        // -log pi(a) of the masked softmax over the S real servers (and the wait target).
        std::vector<unsigned char> mask(s.outputs(), 0);
        std::vector<int> targets;
        for (int m = 0; m < S; ++m) targets.push_back(m);
        if (wait) targets.push_back(s.wait_column());
        std::vector<float> logits;
        for (int a : targets) {
          mask[a] = 1;
          logits.push_back(out[a]);
        }
        double mx = *std::max_element(logits.begin(), logits.end()), z = 0;
        for (float l : logits) z += std::exp(l - mx);
        for (size_t k = 0; k < targets.size(); ++k) {
          const float adv = 1;
          const double loss = engine->add_policy_gradient(row.data(), 1, mask.data(), &targets[k], &adv, 0.0).loss;
          EXPECT_NEAR(loss, -(logits[k] - mx - std::log(z)), 1e-4) << "target " << targets[k] << " of " << S;
        }
        if (wait) {  // run() gives the wait logit after the S servers'
          const std::vector<float> direct = AttnForward(s, params).run(J, S, J - 1, row.data() + s.jobs_at(),
                                                                       row.data() + s.servers_at(), row.data() + s.query_at());
          ASSERT_EQ(static_cast<int>(direct.size()), S + 1);
          EXPECT_EQ(direct[S], out[s.wait_column()]);
        }
      }
    }
  }
}

TEST(AttnNet, PerJobOutputsFollowAPermutationOfTheJobs) {
  Rng rng(3);
  const AttnShape s = shape_of(AttnHead::per_job);
  AttnForward fwd(s, attn_initial_parameters(s, rng));
  const int J = 5;
  const auto jx = random_values(static_cast<size_t>(J) * s.job_features, rng);
  const std::vector<float> a = fwd.run(J, 0, 0, jx.data(), nullptr, nullptr);
  const int perm[J] = {3, 0, 4, 1, 2};
  std::vector<float> px;
  for (int k : perm) px.insert(px.end(), jx.begin() + k * s.job_features, jx.begin() + (k + 1) * s.job_features);
  const std::vector<float> b = fwd.run(J, 0, 0, px.data(), nullptr, nullptr);
  for (int k = 0; k < J; ++k) EXPECT_NEAR(b[k], a[perm[k]], 1e-5);
}

// y_j = 0.8 x_j0 - 0.5 x_j1 + 0.6 mean_k x_k2 over sequences of 2..7 jobs: the seq2seq regression
// learns it (a per-job term and a term of the whole sequence) to a small hold-out error.
TEST(AttnNet, Seq2SeqRegressionFitsASyntheticFunction) {
  AttnShape s = shape_of(AttnHead::per_job);
  s.embed = 16;
  Rng rng(11);
  RegressionData d;
  d.inputs = s.inputs();
  d.outputs = s.outputs();
  double var = 0;
  std::vector<float> row(static_cast<size_t>(s.inputs()));
  for (int n = 0; n < 800; ++n) {
    const int J = static_cast<int>(rng.uniform_int(2, s.max_jobs));
    const auto jx = random_values(static_cast<size_t>(J) * s.job_features, rng);
    double mean2 = 0;
    for (int j = 0; j < J; ++j) mean2 += jx[j * s.job_features + 2] / J;
    std::vector<float> y(s.outputs(), 0.0f), w(s.outputs(), 0.0f);
    for (int j = 0; j < J; ++j) {
      y[j] = static_cast<float>(0.8 * jx[j * s.job_features] - 0.5 * jx[j * s.job_features + 1] + 0.6 * mean2);
      w[j] = 1;
      var += y[j] * y[j];
    }
    attn_encode(s, J, 0, 0, jx.data(), nullptr, nullptr, row.data());
    d.add(row.data(), y.data(), w.data());
  }
  auto engine = make_attn_trainer(s, attn_initial_parameters(s, rng), 3e-3);
  RegressionConfig c;
  c.epochs = 30;
  c.batch = 32;
  c.lr = 3e-3;
  c.holdout = 0.2;
  const RegressionFit fit = fit_regression_engine(
      *engine,
      [s](const std::vector<float>& p) -> RowPredictor {
        auto net = std::make_shared<AttnForward>(s, p);
        return [net](const float* r) -> const std::vector<float>& { return net->run_row(r); };
      },
      d, c);
  const double mean_sq = var / static_cast<double>(fit.train.outputs_counted + fit.holdout.outputs_counted);
  EXPECT_LT(fit.holdout.mse, 0.05 * mean_sq) << "hold-out MSE " << fit.holdout.mse << " vs E[y^2] " << mean_sq;
  EXPECT_LT(fit.holdout_mse_curve.back(), fit.holdout_mse_curve.front());
}

}  // namespace
}  // namespace dmlkit::learn
