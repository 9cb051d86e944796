// Graph readers, the R-MAT generator and the partitioners.
#include <gtest/gtest.h>

#include "core/error.h"
#include "gnn/graph.h"
#include "gnn/partition.h"
#include "gnn_test_util.h"

using namespace dmlkit;
using namespace dmlkit::gnn;

TEST(GnnGraph, HeaderFormatIsSymmetrisedWithoutDuplicatesOrSelfLoops) {
  const Graph g = parse_graph_text("4 5\n0 1 0.5\n1 0 0.5\n1 2 1\n2 2 1\n3 0 0.1\n", "g.txt", GraphFormat::Auto);
  EXPECT_EQ(g.nodes, 4u);
  EXPECT_EQ(g.undirected_edges(), 3u);  // {0,1}, {1,2}, {0,3}
  EXPECT_EQ(g.degree(0), 2u);
  EXPECT_EQ(g.degree(2), 1u);
  for (uint32_t v = 0; v < g.nodes; ++v)
    for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) EXPECT_NE(g.neighbours[k], v);
}

TEST(GnnGraph, SnapEdgeListWithComments) {
  const Graph g =
      parse_graph_text("# FromNodeId\tToNodeId\n0\t5\n5\t7\n% other comment\n", "snap.txt", GraphFormat::Auto);
  EXPECT_EQ(g.nodes, 8u);
  EXPECT_EQ(g.undirected_edges(), 2u);
}

TEST(GnnGraph, NodeIdOutOfRangeNamesFileLineAndField) {
  try {
    parse_graph_text("3 2\n0 1\n1 3\n", "bad.txt", GraphFormat::Auto);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "bad.txt");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "target");
    EXPECT_NE(std::string(e.what()).find("outside 0..2"), std::string::npos);
  }
  EXPECT_THROW(parse_graph_text("0 -1\n", "neg.txt", GraphFormat::Edges), Error);
  EXPECT_THROW(parse_graph_text("3 5\n0 1\n", "count.txt", GraphFormat::Header), Error);
}

TEST(GnnGraph, BundledGraphsLoad) {
  const Graph nethept = load_graph("NetHEPT", GraphFormat::Auto, fixture::data_dir(), 1);
  EXPECT_EQ(nethept.nodes, 15233u);
  const Graph cora = load_graph("cora", GraphFormat::Auto, fixture::data_dir(), 1);
  EXPECT_EQ(cora.nodes, 2708u);
  EXPECT_EQ(cora.undirected_edges(), 5278u);  // meta.txt: num_edges_undirected
  EXPECT_EQ(cora.default_feature_dim, 1433);
}

TEST(GnnGraph, RmatIsDeterministicSymmetricAndSkewed) {
  const Graph a = load_graph("rmat:nodes=5000,edge_factor=8", GraphFormat::Auto, "", 3);
  const Graph b = load_graph("rmat:nodes=5000,edge_factor=8", GraphFormat::Auto, "", 3);
  EXPECT_EQ(a.nodes, 5000u);
  EXPECT_EQ(a.neighbours, b.neighbours);
  uint64_t max_deg = 0;
  for (uint32_t v = 0; v < a.nodes; ++v) {
    max_deg = std::max(max_deg, a.degree(v));
    for (uint64_t k = a.offsets[v]; k < a.offsets[v + 1]; ++k) {
      const uint32_t u = a.neighbours[k];
      EXPECT_TRUE(std::binary_search(a.neighbours.begin() + a.offsets[u], a.neighbours.begin() + a.offsets[u + 1], v));
    }
  }
  EXPECT_GT(max_deg, 10 * a.neighbours.size() / a.nodes);  // power-law: hubs far above the mean degree
  EXPECT_THROW(parse_rmat("rmat:nodes=10,typo=1"), Error);
}

TEST(GnnGraph, RmatDoesNotDependOnTheThreadCount) {
  // 70,000 nodes: three blocks of source nodes (2^15 each), the last one partial.
  const RmatParams p = parse_rmat("rmat:nodes=70000,edge_factor=4");
  const Graph one = generate_rmat(p, 5, 1);
  ASSERT_GT(one.undirected_edges(), 200000u);
  for (int threads : {2, 3}) {
    const Graph many = generate_rmat(p, 5, threads);
    EXPECT_EQ(many.offsets, one.offsets);
    EXPECT_EQ(many.neighbours, one.neighbours);
  }
  // Rows sorted, unique, without self-loops, and every node below the node count.
  for (uint32_t v = 0; v < one.nodes; ++v)
    for (uint64_t k = one.offsets[v]; k < one.offsets[v + 1]; ++k) {
      EXPECT_LT(one.neighbours[k], one.nodes);
      EXPECT_NE(one.neighbours[k], v);
      if (k > one.offsets[v]) {
        EXPECT_LT(one.neighbours[k - 1], one.neighbours[k]);
      }
    }
  EXPECT_NE(generate_rmat(p, 6, 1).neighbours, one.neighbours);  // the seed matters
}

TEST(GnnPartition, MetisCutsFarFewerEdgesThanRandomAndBalances) {
  const Graph g = load_graph("cora", GraphFormat::Auto, fixture::data_dir(), 1);
  const auto metis = partition_graph(g, 4, Partitioner::metis, 1);
  const auto random = partition_graph(g, 4, Partitioner::random, 1);
  const auto hash = partition_graph(g, 4, Partitioner::hash, 1);
  EXPECT_LT(metis.cut_edges * 3, random.cut_edges);
  for (auto* p : {&metis, &random, &hash}) {
    uint64_t sum = 0;
    for (auto n : p->nodes_per_part) {
      sum += n;
      EXPECT_GT(n, g.nodes / 8);
    }
    EXPECT_EQ(sum, g.nodes);
  }
  EXPECT_THROW(partition_graph(g, 4, "kahip", {}, 1), Error);
}
