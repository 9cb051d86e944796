// IMM and the oracle: on small graphs where the optimum can be enumerated exactly, the oracle's seed
// set is at least as good as greedy's (up to IMM's sampling error) and within 1 - 1/e of optimal.
#include <gtest/gtest.h>

#include <cmath>

#include "influence/algorithm.h"
#include "influence/cascade.h"
#include "influence/imm.h"
#include "influence/rr_sets.h"
#include "test_graphs.h"

namespace dmlkit::influence {
namespace {

// A 9-node graph with 14 edges, two overlapping hubs (0 and 4) and a chain.
EdgeList small_graph() {
  return testing::edges(9, {0, 0, 0, 4, 4, 4, 4, 1, 2, 5, 6, 7, 8, 3}, {1, 2, 3, 3, 5, 6, 7, 2, 8, 6, 8, 8, 0, 4},
                        {0.6f, 0.5f, 0.4f, 0.7f, 0.5f, 0.5f, 0.3f, 0.4f, 0.3f, 0.6f, 0.2f, 0.5f, 0.3f, 0.2f});
}

double best_by_enumeration(const Graph& g, int k, std::vector<NodeId>& best) {
  const uint32_t n = g.num_nodes();
  double best_value = -1;
  std::vector<NodeId> set;
  std::function<void(NodeId)> rec = [&](NodeId from) {
    if (static_cast<int>(set.size()) == k) {
      const double v = exact_spread(g, set);
      if (v > best_value) {
        best_value = v;
        best = set;
      }
      return;
    }
    for (NodeId v = from; v < n; ++v) {
      set.push_back(v);
      rec(v + 1);
      set.pop_back();
    }
  };
  rec(0);
  return best_value;
}

double greedy_exact(const Graph& g, int k) {
  std::vector<NodeId> set;
  for (int i = 0; i < k; ++i) {
    double best = -1;
    NodeId pick = 0;
    for (NodeId v = 0; v < g.num_nodes(); ++v) {
      if (std::find(set.begin(), set.end(), v) != set.end()) continue;
      set.push_back(v);
      const double s = exact_spread(g, set);
      set.pop_back();
      if (s > best) {
        best = s;
        pick = v;
      }
    }
    set.push_back(pick);
  }
  return exact_spread(g, set);
}

}  // namespace

TEST(InfluenceImm, OracleAtLeastAsGoodAsGreedyWhereTheOptimumIsKnown) {
  const Graph g = Graph::from_edges(small_graph());
  std::vector<NodeId> present(9);
  for (NodeId v = 0; v < 9; ++v) present[v] = v;
  std::vector<uint8_t> flags(9, 1);
  for (int k : {1, 2, 3}) {
    std::vector<NodeId> opt_set;
    const double opt = best_by_enumeration(g, k, opt_set);
    const double greedy = greedy_exact(g, k);
    ASSERT_LE(greedy, opt + 1e-12);
    auto oracle = make_algorithm("oracle", {{"oracle.epsilon", "0.1"}});
    oracle->reset(9, k);
    StepInput in;
    in.k = k;
    in.num_nodes = 9;
    in.present_nodes = &present;
    in.node_present = &flags;
    in.network = &g;
    Rng rng(17);
    std::vector<NodeId> seeds;
    oracle->select(in, rng, seeds);
    ASSERT_EQ(static_cast<int>(seeds.size()), k);
    const double value = exact_spread(g, seeds);
    EXPECT_GE(value, greedy - 0.01 * opt) << "k=" << k;
    EXPECT_GE(value, (1 - 1 / std::exp(1.0) - 0.1) * opt) << "k=" << k;
  }
}

TEST(InfluenceImm, EstimatedSpreadIsCloseToTheExactValue) {
  const Graph g = Graph::from_edges(small_graph());
  std::vector<NodeId> present(9);
  for (NodeId v = 0; v < 9; ++v) present[v] = v;
  Rng rng(3);
  const ImmResult r = imm(g, present, 2, ImmOptions{.epsilon = 0.1}, rng);
  ASSERT_EQ(r.seeds.size(), 2u);
  EXPECT_FALSE(r.capped);
  EXPECT_GT(r.rr_sets, 1000u);
  EXPECT_NEAR(r.estimated_spread, exact_spread(g, r.seeds), 0.1 * exact_spread(g, r.seeds));
}

TEST(InfluenceImm, RestrictsSeedsToPresentNodes) {
  const Graph g = Graph::from_edges(small_graph());
  const std::vector<NodeId> present{1, 2, 5, 8};
  Rng rng(4);
  const ImmResult r = imm(g, present, 3, ImmOptions{.epsilon = 0.3}, rng);
  ASSERT_EQ(r.seeds.size(), 3u);
  for (NodeId s : r.seeds) EXPECT_NE(std::find(present.begin(), present.end(), s), present.end());
  EXPECT_EQ(imm(g, present, 10, ImmOptions{.epsilon = 0.3}, rng).seeds.size(), 4u);
}

TEST(InfluenceRRSets, CoverageOfAStarCountsEveryLeafRoot) {
  // Star 0 -> 1..4 with probability 1: every RR set rooted at a leaf contains 0.
  const Graph g = Graph::from_edges(testing::edges(5, {0, 0, 0, 0}, {1, 2, 3, 4}, {1, 1, 1, 1}));
  RRCollection rr;
  Rng rng(5);
  rr.generate(g, {0, 1, 2, 3, 4}, 1000, rng);
  size_t covered = 0;
  const auto seeds = rr.max_coverage(5, 1, {}, &covered);
  EXPECT_EQ(seeds, std::vector<NodeId>{0});
  EXPECT_EQ(covered, 1000u);
}

}  // namespace dmlkit::influence
