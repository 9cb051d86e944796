// RSB: the update and the sampling distribution match a hand computation on three nodes, the
// sampler's empirical frequencies match q, and RSB beats random seeds on a small dynamic run.
#include <gtest/gtest.h>

#include <cmath>

#include "influence/algorithms/rsb.h"
#include "influence/experiment.h"
#include "influence/generators.h"

namespace dmlkit::influence {
namespace {

StepInput input(const std::vector<NodeId>& present, const std::vector<uint8_t>& flags, int k) {
  StepInput in;
  in.k = k;
  in.num_nodes = static_cast<uint32_t>(flags.size());
  in.present_nodes = &present;
  in.node_present = &flags;
  return in;
}

}  // namespace

TEST(InfluenceRsb, UpdateMatchesHandComputationOnThreeNodes) {
  const double gamma = 0.5, c = 1.0, e = std::exp(1.0);
  Rsb rsb(gamma, c);
  rsb.reset(3, 2);
  const std::vector<NodeId> present{0, 1, 2};
  const std::vector<uint8_t> flags{1, 1, 1};
  StepInput in = input(present, flags, 2);
  Rng rng(11);
  std::vector<NodeId> seeds;
  rsb.select(in, rng, seeds);
  ASSERT_EQ(seeds.size(), 2u);
  ASSERT_NE(seeds[0], seeds[1]);
  const NodeId a = seeds[0], b = seeds[1];
  // All weights 1: slot 1 draws with q = 1/3; slot 2 among the two unchosen nodes with q = 1/2.
  ASSERT_EQ(rsb.last_probabilities().size(), 2u);
  EXPECT_DOUBLE_EQ(rsb.last_probabilities()[0], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(rsb.last_probabilities()[1], 1.0 / 2.0);
  // Marginal rewards 2 and 1: r^ = 2 / (1/3) = 6 and 1 / (1/2) = 2;
  // log v_1(a) = gamma * 6 / (N C) = 0.5 * 6 / 3 = 1; log v_2(b) = 0.5 * 2 / 3 = 1/3.
  rsb.observe(in, seeds, {2, 1});
  for (NodeId n = 0; n < 3; ++n) {
    EXPECT_DOUBLE_EQ(rsb.log_weight(0, n), n == a ? 1.0 : 0.0);
    EXPECT_NEAR(rsb.log_weight(1, n), n == b ? 1.0 / 3.0 : 0.0, 1e-15);
  }
  // Slot 1 next step: w(a) = (1 - gamma) e / (e + 2) + gamma / 3, the others (1 - gamma) / (e + 2) + gamma / 3.
  const double wa = 0.5 * e / (e + 2) + 0.5 / 3, wo = 0.5 / (e + 2) + 0.5 / 3;
  EXPECT_NEAR(rsb.probability(0, a, {}, present), wa, 1e-12);
  for (NodeId n = 0; n < 3; ++n) {
    if (n != a) {
      EXPECT_NEAR(rsb.probability(0, n, {}, present), wo, 1e-12);
    }
  }
  EXPECT_NEAR(wa + 2 * wo, 1.0, 1e-12);
  // Slot 2 with a third node x chosen first: q restricted to the two others, renormalized.
  const double e3 = std::exp(1.0 / 3.0);
  const NodeId x = (b + 1) % 3;  // some node other than b
  auto w2 = [&](NodeId n) { return 0.5 * (n == b ? e3 : 1.0) / (e3 + 2) + 0.5 / 3; };
  double z = 0;
  for (NodeId n = 0; n < 3; ++n)
    if (n != x) z += w2(n);
  EXPECT_NEAR(rsb.probability(1, b, {x}, present), w2(b) / z, 1e-12);
  EXPECT_EQ(rsb.probability(1, x, {x}, present), 0.0);
  // The probabilities recorded by the sampler are the same q.
  seeds.clear();
  rsb.select(in, rng, seeds);
  EXPECT_NEAR(rsb.last_probabilities()[0], rsb.probability(0, seeds[0], {}, present), 1e-12);
  EXPECT_NEAR(rsb.last_probabilities()[1], rsb.probability(1, seeds[1], {seeds[0]}, present), 1e-12);
}

TEST(InfluenceRsb, SamplerFrequenciesMatchQ) {
  Rsb rsb(0.3, 1.0);
  rsb.reset(4, 1);
  const std::vector<NodeId> present{0, 1, 2, 3};
  const std::vector<uint8_t> flags{1, 1, 1, 1};
  StepInput in = input(present, flags, 1);
  Rng rng(2);
  std::vector<NodeId> seeds;
  // Make node 2 heavy: one draw of it with reward 5.
  while (true) {
    seeds.clear();
    rsb.select(in, rng, seeds);
    if (seeds[0] == 2) break;
  }
  rsb.observe(in, seeds, {5});
  std::vector<int> counts(4, 0);
  const int draws = 200000;
  for (int i = 0; i < draws; ++i) {
    seeds.clear();
    rsb.select(in, rng, seeds);
    ++counts[seeds[0]];
  }
  for (NodeId n = 0; n < 4; ++n) EXPECT_NEAR(counts[n] / double(draws), rsb.probability(0, n, {}, present), 0.005) << n;
}

TEST(InfluenceRsb, SkipsAbsentNodesAndNewNodesStartAtWeightOne) {
  Rsb rsb(0.2, 1.0);
  rsb.reset(5, 2);
  const std::vector<NodeId> present{1, 3, 4};
  const std::vector<uint8_t> flags{0, 1, 0, 1, 1};
  StepInput in = input(present, flags, 2);
  Rng rng(9);
  for (int i = 0; i < 200; ++i) {
    std::vector<NodeId> seeds;
    rsb.select(in, rng, seeds);
    for (NodeId s : seeds) ASSERT_TRUE(flags[s]);
    rsb.observe(in, seeds, {1, 1});
  }
  EXPECT_EQ(rsb.log_weight(0, 0), 0.0);
  EXPECT_EQ(rsb.log_weight(1, 2), 0.0);
}

TEST(InfluenceRsb, BeatsRandomOnASmallDynamicRun) {
  Rng rng(3);
  const EdgeList graph = preferential_attachment(300, 2, rng);
  ExperimentConfig config;
  config.k = 5;
  config.steps = 600;
  config.runs = 2;
  config.seed = 4;
  config.dynamics.model = ProbabilityModel::WeightedCascade;
  config.dynamics.edge_churn = 0.05;
  config.dynamics.edge_presence = 0.9;
  config.algorithms = {"rsb", "random"};
  config.best_fixed = false;
  const ExperimentResult r = run_experiment(graph, config);
  double rsb = 0, random = 0;
  for (int run = 0; run < config.runs; ++run)
    for (int t = 0; t < config.steps; ++t) {
      rsb += r.algorithms[0].reward[run][t];
      random += r.algorithms[1].reward[run][t];
    }
  EXPECT_GT(rsb, 1.2 * random) << "rsb " << rsb << " random " << random;
}

}  // namespace dmlkit::influence
