// The baselines behind the Algorithm interface: static-greedy computes once and never updates,
// CUCB tries every node before exploiting, epsilon-greedy with epsilon 0 exploits the best mean,
// random draws distinct present nodes.
#include <gtest/gtest.h>

#include <set>

#include "influence/algorithm.h"
#include "test_graphs.h"

namespace dmlkit::influence {
namespace {

struct Nodes {
  std::vector<NodeId> present;
  std::vector<uint8_t> flags;
  explicit Nodes(uint32_t n) : flags(n, 1) {
    for (NodeId v = 0; v < n; ++v) present.push_back(v);
  }
  StepInput input(int k, int step, const Graph* network = nullptr) const {
    StepInput in;
    in.k = k;
    in.step = step;
    in.num_nodes = static_cast<uint32_t>(flags.size());
    in.present_nodes = &present;
    in.node_present = &flags;
    in.network = network;
    return in;
  }
};

}  // namespace

TEST(InfluenceBaselines, StaticGreedyComputesOnceAndNeverUpdates) {
  // Star 0 -> 1..5 (certain) plus an isolated pair 6 -> 7: the best single seed is 0.
  const Graph star = Graph::from_edges(testing::edges(8, {0, 0, 0, 0, 0, 6}, {1, 2, 3, 4, 5, 7}, {1, 1, 1, 1, 1, 1}));
  // Later the network changes so that 6 becomes the hub; static-greedy must not notice.
  const Graph moved = Graph::from_edges(testing::edges(8, {6, 6, 6, 6, 6, 0}, {1, 2, 3, 4, 5, 7}, {1, 1, 1, 1, 1, 1}));
  auto alg = make_algorithm("static-greedy");
  EXPECT_EQ(alg->access(), NetworkAccess::FirstStep);
  const Nodes nodes(8);
  alg->reset(8, 1);
  Rng rng(1);
  std::vector<NodeId> seeds;
  alg->select(nodes.input(1, 0, &star), rng, seeds);
  EXPECT_EQ(seeds, std::vector<NodeId>{0});
  for (int step = 1; step < 5; ++step) {
    seeds.clear();
    alg->select(nodes.input(1, step, step == 1 ? &moved : nullptr), rng, seeds);
    EXPECT_EQ(seeds, std::vector<NodeId>{0}) << step;
  }
}

TEST(InfluenceBaselines, CucbTriesEveryNodeThenExploitsTheBest) {
  auto alg = make_algorithm("cucb", {{"cucb.alpha", "0"}});  // no bonus: pure means once tried
  const Nodes nodes(6);
  alg->reset(6, 2);
  Rng rng(2);
  std::set<NodeId> tried;
  for (int step = 0; step < 3; ++step) {
    std::vector<NodeId> seeds;
    const StepInput in = nodes.input(2, step);
    alg->select(in, rng, seeds);
    ASSERT_EQ(seeds.size(), 2u);
    for (NodeId s : seeds) EXPECT_TRUE(tried.insert(s).second) << "node " << s << " tried twice before all were tried";
    std::vector<uint32_t> reward;
    for (NodeId s : seeds) reward.push_back(s == 4 ? 9 : s == 1 ? 5 : 1);
    alg->observe(in, seeds, reward);
  }
  EXPECT_EQ(tried.size(), 6u);
  std::vector<NodeId> seeds;
  alg->select(nodes.input(2, 3), rng, seeds);
  EXPECT_EQ(seeds, (std::vector<NodeId>{4, 1}));
}

TEST(InfluenceBaselines, EpsilonGreedyWithoutExplorationExploitsTheBestMean) {
  auto alg = make_algorithm("epsilon-greedy", {{"epsilon-greedy.epsilon", "0"}});
  const Nodes nodes(5);
  alg->reset(5, 1);
  Rng rng(3);
  const StepInput in = nodes.input(1, 0);
  alg->observe(in, {2}, {7});
  alg->observe(in, {3}, {4});
  for (int i = 0; i < 20; ++i) {
    std::vector<NodeId> seeds;
    alg->select(in, rng, seeds);
    EXPECT_EQ(seeds, std::vector<NodeId>{2});
  }
}

TEST(InfluenceBaselines, RandomDrawsDistinctPresentNodesUniformly) {
  auto alg = make_algorithm("random");
  Nodes nodes(10);
  nodes.flags = {1, 0, 1, 1, 0, 1, 1, 1, 1, 1};
  nodes.present = {0, 2, 3, 5, 6, 7, 8, 9};
  alg->reset(10, 3);
  Rng rng(4);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 8000; ++i) {
    std::vector<NodeId> seeds;
    alg->select(nodes.input(3, i), rng, seeds);
    ASSERT_EQ(std::set<NodeId>(seeds.begin(), seeds.end()).size(), 3u);
    for (NodeId s : seeds) ++counts[s];
  }
  for (NodeId v = 0; v < 10; ++v) {
    if (!nodes.flags[v])
      EXPECT_EQ(counts[v], 0);
    else
      EXPECT_NEAR(counts[v], 3000, 200) << v;  // 8000 draws x 3 / 8 present nodes
  }
}

}  // namespace dmlkit::influence
