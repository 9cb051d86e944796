// Independent cascade: the exact enumerator on hand-computed cases, Monte Carlo matching the exact
// expected spread, marginal rewards per seed, and the live-edge realization.
#include <gtest/gtest.h>

#include <cmath>

#include "influence/cascade.h"
#include "test_graphs.h"

namespace dmlkit::influence {

using testing::diamond;
using testing::path3;

TEST(InfluenceCascade, ExactSpreadByHand) {
  const Graph g = Graph::from_edges(path3());
  const std::vector<NodeId> s0{0}, s1{1}, s01{0, 1};
  EXPECT_DOUBLE_EQ(exact_spread(g, s0), 1 + 0.5 + 0.25);
  EXPECT_DOUBLE_EQ(exact_spread(g, s1), 1.5);
  EXPECT_DOUBLE_EQ(exact_spread(g, s01), 2.5);
}

TEST(InfluenceCascade, MonteCarloMatchesExactSpread) {
  const Graph g = Graph::from_edges(diamond());
  CascadeSimulator sim(g.num_nodes());
  Rng rng(42);
  for (const std::vector<NodeId>& seeds :
       {std::vector<NodeId>{0}, std::vector<NodeId>{0, 3}, std::vector<NodeId>{2, 1}}) {
    const double exact = exact_spread(g, seeds);
    const double mc = sim.mean_spread(g, seeds, 200000, rng);
    // Spread <= 6, so the standard error is below 6 / sqrt(200000) / 2 ~ 0.007.
    EXPECT_NEAR(mc, exact, 0.03) << seeds.size();
  }
}

TEST(InfluenceCascade, LiveEdgeRealizationMatchesExactSpread) {
  const Graph g = Graph::from_edges(diamond());
  CascadeSimulator sim(g.num_nodes());
  Rng rng(5);
  std::vector<uint8_t> live;
  const std::vector<NodeId> seeds{0};
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    sample_live_edges(g, rng, live);
    sum += sim.run_live(g, live, seeds);
  }
  EXPECT_NEAR(sum / n, exact_spread(g, seeds), 0.04);
}

TEST(InfluenceCascade, MarginalRewardsPerSeed) {
  EdgeList e = path3();
  e.prob = {1.0f, 1.0f};
  const Graph g = Graph::from_edges(e);
  CascadeSimulator sim(3);
  Rng rng(1);
  std::vector<uint32_t> marginal(3);
  const std::vector<NodeId> seeds{1, 0, 1};
  EXPECT_EQ(sim.run(g, seeds, rng, marginal), 3u);
  EXPECT_EQ(marginal, (std::vector<uint32_t>{2, 1, 0}));  // 1 reaches {1,2}; 0 adds itself; 1 again adds nothing
  e.prob = {0.0f, 0.0f};
  const Graph none = Graph::from_edges(e);
  const std::vector<NodeId> one{0};
  EXPECT_EQ(sim.run(none, one, rng), 1u);
}

TEST(InfluenceCascade, ManyCascadesReuseTheSameBuffers) {
  const Graph g = Graph::from_edges(diamond());
  CascadeSimulator sim(g.num_nodes());
  Rng rng(3);
  const std::vector<NodeId> seeds{0};
  for (int i = 0; i < 1000; ++i) {
    const uint32_t r = sim.run(g, seeds, rng);
    ASSERT_GE(r, 1u);
    ASSERT_LE(r, 6u);
  }
}

}  // namespace dmlkit::influence
