// Dynamics: trivalency levels, weighted cascade on the present topology, fluctuating bounds and
// motion, topology churn fractions, and determinism per seed.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "influence/dynamics.h"
#include "influence/generators.h"

namespace dmlkit::influence {
namespace {

EdgeList dynamics_graph() {
  Rng rng(1);
  return erdos_renyi(400, 5, rng);
}

}  // namespace

TEST(InfluenceDynamics, TrivalencyRedrawsFromTheThreeLevels) {
  const EdgeList g = dynamics_graph();
  DynamicsConfig c;
  c.model = ProbabilityModel::Trivalency;
  DynamicNetwork net(g, c, Rng(2));
  net.advance();
  const std::vector<float> first = net.graph().out_prob();
  std::set<float> levels(first.begin(), first.end());
  EXPECT_EQ(levels, (std::set<float>{0.1f, 0.01f, 0.001f}));
  net.advance();
  EXPECT_NE(net.graph().out_prob(), first);  // redrawn every step
  EXPECT_EQ(net.graph().num_edges(), g.num_edges());
}

TEST(InfluenceDynamics, WeightedCascadeFollowsThePresentInDegree) {
  const EdgeList g = dynamics_graph();
  DynamicsConfig c;
  c.model = ProbabilityModel::WeightedCascade;
  c.edge_churn = 0.1;
  c.edge_presence = 0.8;
  DynamicNetwork net(g, c, Rng(3));
  for (int step = 0; step < 3; ++step) {
    net.advance();
    const Graph& gr = net.graph();
    for (NodeId v = 0; v < gr.num_nodes(); ++v) {
      const uint32_t indeg = gr.in_end(v) - gr.in_begin(v);
      for (uint32_t i = gr.in_begin(v); i < gr.in_end(v); ++i) ASSERT_FLOAT_EQ(gr.in_prob()[i], 1.0f / indeg);
    }
  }
}

TEST(InfluenceDynamics, FluctuatingStaysInBoundsAndMoves) {
  const EdgeList g = dynamics_graph();
  DynamicsConfig c;
  c.model = ProbabilityModel::Fluctuating;
  c.steps = 10;  // rate 0.03 per step: bounces several times in 40 steps
  DynamicNetwork net(g, c, Rng(4));
  net.advance();
  const std::vector<float> first = net.graph().out_prob();
  for (int step = 1; step < 40; ++step) {
    net.advance();
    for (float p : net.graph().out_prob()) {
      ASSERT_GE(p, 0.0f);
      ASSERT_LE(p, 0.1f + 1e-6f);
    }
  }
  net.advance();
  EXPECT_NE(net.graph().out_prob(), first);
}

TEST(InfluenceDynamics, ChurnKeepsTheLongRunPresenceAndRemovesAbsentNodesEdges) {
  const EdgeList g = dynamics_graph();
  DynamicsConfig c;
  c.model = ProbabilityModel::Trivalency;
  c.edge_churn = 0.2;
  c.edge_presence = 0.6;
  c.node_churn = 0.1;
  c.node_presence = 0.8;
  DynamicNetwork net(g, c, Rng(5));
  double node_fraction = 0;
  std::vector<NodeId> previous;
  int changed = 0;
  for (int step = 0; step < 50; ++step) {
    net.advance();
    node_fraction += static_cast<double>(net.present_nodes().size()) / g.num_nodes;
    if (net.present_nodes() != previous) ++changed;
    previous = net.present_nodes();
    const Graph& gr = net.graph();
    for (NodeId u = 0; u < gr.num_nodes(); ++u)
      for (uint32_t i = gr.out_begin(u); i < gr.out_end(u); ++i) {
        ASSERT_TRUE(net.node_present()[u]);
        ASSERT_TRUE(net.node_present()[gr.out_target()[i]]);
      }
  }
  EXPECT_NEAR(node_fraction / 50, 0.8, 0.05);
  EXPECT_EQ(changed, 50);
  // Edges: present fraction 0.6 of edges times 0.8^2 for both endpoints.
  EXPECT_NEAR(static_cast<double>(net.present_edges()) / g.num_edges(), 0.6 * 0.64, 0.06);
}

TEST(InfluenceDynamics, SameSeedSameNetworks) {
  const EdgeList g = dynamics_graph();
  DynamicsConfig c;
  c.model = ProbabilityModel::Fluctuating;
  c.edge_churn = 0.1;
  c.edge_presence = 0.5;
  DynamicNetwork a(g, c, Rng(6)), b(g, c, Rng(6));
  for (int step = 0; step < 5; ++step) {
    a.advance();
    b.advance();
    ASSERT_EQ(a.graph().out_target(), b.graph().out_target());
    ASSERT_EQ(a.graph().out_prob(), b.graph().out_prob());
  }
}

TEST(InfluenceDynamics, RejectsBadKnobs) {
  const EdgeList g = dynamics_graph();
  DynamicsConfig c;
  c.edge_churn = 0.1;  // presence 1: nothing could come back
  EXPECT_THROW(DynamicNetwork(g, c, Rng(1)), Error);
  c = DynamicsConfig{};
  c.model = ProbabilityModel::Static;  // generated graph: no probabilities
  EXPECT_THROW(DynamicNetwork(g, c, Rng(1)), Error);
  c = DynamicsConfig{};
  c.node_presence = 0;
  EXPECT_THROW(DynamicNetwork(g, c, Rng(1)), Error);
  EXPECT_THROW(parse_probability_model("sometimes"), Error);
  EXPECT_EQ(parse_probability_model("tr"), ProbabilityModel::Trivalency);
}

}  // namespace dmlkit::influence
