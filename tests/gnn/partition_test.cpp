// The multilevel pre-step of the metis partitioner (coarsen.h): clustering and contraction keep
// every node and edge accounted for (also from a weighted level to the next), partitions project
// correctly through two levels, the refinement never cuts more edges, and the whole path returns
// a valid balanced partition that cuts well below hash on a small R-MAT graph.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "gnn/coarsen.h"
#include "gnn/graph.h"
#include "gnn/partition.h"

using namespace dmlkit;
using namespace dmlkit::gnn;

namespace {

const Graph& small_rmat() {
  static const Graph g = generate_rmat(parse_rmat("rmat:nodes=20000,edge_factor=8"), 3);
  return g;
}

uint64_t cut_of(const Graph& g, const std::vector<uint16_t>& part_of) {
  uint64_t cut = 0;
  for (uint32_t v = 0; v < g.nodes; ++v)
    for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k)
      if (g.neighbours[k] > v && part_of[g.neighbours[k]] != part_of[v]) ++cut;
  return cut;
}

// Every node in one of `parts` parts, within the 3% imbalance, the cut counted right.
void expect_valid_and_balanced(const Graph& g, const Partitioning& p, int parts) {
  ASSERT_EQ(p.part_of.size(), g.nodes);
  for (uint16_t q : p.part_of) ASSERT_LT(q, parts);
  uint64_t sum = 0;
  for (uint64_t n : p.nodes_per_part) sum += n;
  EXPECT_EQ(sum, g.nodes);
  EXPECT_LE(p.imbalance(), 0.031);
  EXPECT_EQ(p.cut_edges, cut_of(g, p.part_of));
}

}  // namespace

TEST(GnnCoarsen, ContractionKeepsEveryNodeAndEdge) {
  const Graph& g = small_rmat();
  CoarsenConfig cfg;
  cfg.target_nodes = 2000;
  const CoarseGraph cg = coarsen(g, cfg);
  ASSERT_GT(cg.nodes, 0u);
  EXPECT_LT(cg.nodes, g.nodes / 2);  // clustering merged nodes
  ASSERT_EQ(cg.cluster_of.size(), g.nodes);
  // Vertex weights sum to the nodes of positive degree; degree-0 nodes belong to no cluster.
  uint64_t active = 0, weight = 0;
  for (uint32_t v = 0; v < g.nodes; ++v) {
    if (g.degree(v) == 0) {
      EXPECT_EQ(cg.cluster_of[v], kNoCluster);
    } else {
      ++active;
      ASSERT_LT(cg.cluster_of[v], cg.nodes);
    }
  }
  for (int32_t w : cg.vwgt) {
    EXPECT_GE(w, 1);
    weight += static_cast<uint64_t>(w);
  }
  EXPECT_EQ(weight, active);
  // Edge weights: every fine edge between two clusters is counted once from each side, and the
  // coarse adjacency is symmetric with no self-loops.
  uint64_t between = 0;
  for (uint32_t v = 0; v < g.nodes; ++v)
    for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k)
      if (cg.cluster_of[g.neighbours[k]] != cg.cluster_of[v]) ++between;
  uint64_t total = 0;
  for (uint32_t c = 0; c < cg.nodes; ++c)
    for (int32_t k = cg.xadj[c]; k < cg.xadj[c + 1]; ++k) {
      EXPECT_NE(cg.adjncy[k], static_cast<int32_t>(c));
      total += static_cast<uint64_t>(cg.adjwgt[k]);
      const int32_t d = cg.adjncy[k];
      const auto* first = cg.adjncy.data() + cg.xadj[d];
      const auto* last = cg.adjncy.data() + cg.xadj[d + 1];
      const auto* back = std::find(first, last, static_cast<int32_t>(c));
      ASSERT_NE(back, last);
      EXPECT_EQ(cg.adjwgt[back - cg.adjncy.data()], cg.adjwgt[k]);
    }
  EXPECT_EQ(total, between);
  // Deterministic for a seed.
  const CoarseGraph again = coarsen(g, cfg);
  EXPECT_EQ(again.cluster_of, cg.cluster_of);
}

TEST(GnnCoarsen, SecondLevelKeepsWeightsAndProjectsThroughBothLevels) {
  const Graph& g = small_rmat();
  CoarsenConfig cfg;
  cfg.target_nodes = 300;
  const CoarseGraph l1 = coarsen(g, cfg);
  const CoarseGraph l2 = coarsen(l1, cfg);
  ASSERT_GT(l2.nodes, 0u);
  EXPECT_LT(l2.nodes, l1.nodes / 2);
  ASSERT_EQ(l2.cluster_of.size(), l1.nodes);
  // Level-2 weights are sums of level-1 weights; level-1 supernodes without edges are in no cluster.
  std::vector<int64_t> weight(l2.nodes, 0);
  for (uint32_t c = 0; c < l1.nodes; ++c) {
    if (l1.xadj[c + 1] == l1.xadj[c]) {
      EXPECT_EQ(l2.cluster_of[c], kNoCluster);
    } else {
      ASSERT_LT(l2.cluster_of[c], l2.nodes);
      weight[l2.cluster_of[c]] += l1.vwgt[c];
    }
  }
  for (uint32_t d = 0; d < l2.nodes; ++d) EXPECT_EQ(weight[d], l2.vwgt[d]);
  // Level-2 edge weights add up to the fine edges between level-2 clusters; symmetric, no loops.
  auto top = [&](uint32_t v) { return l2.cluster_of[l1.cluster_of[v]]; };
  uint64_t between = 0, total = 0;
  for (uint32_t v = 0; v < g.nodes; ++v)
    for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) between += top(g.neighbours[k]) != top(v);
  for (uint32_t d = 0; d < l2.nodes; ++d)
    for (int32_t k = l2.xadj[d]; k < l2.xadj[d + 1]; ++k) {
      EXPECT_NE(l2.adjncy[k], static_cast<int32_t>(d));
      total += static_cast<uint64_t>(l2.adjwgt[k]);
      const auto* first = l2.adjncy.data() + l2.xadj[l2.adjncy[k]];
      const auto* last = l2.adjncy.data() + l2.xadj[l2.adjncy[k] + 1];
      const auto* back = std::find(first, last, static_cast<int32_t>(d));
      ASSERT_NE(back, last);
      EXPECT_EQ(l2.adjwgt[back - l2.adjncy.data()], l2.adjwgt[k]);
    }
  EXPECT_EQ(total, between);
  // Projection through both levels: every node of positive degree in a supernode of level 2 gets
  // that supernode's part; the rest (dropped at level 1 or 2) fill the lightest parts, so the
  // parts' node counts end within the heaviest dropped piece of each other.
  std::vector<uint16_t> p2(l2.nodes);
  for (uint32_t d = 0; d < l2.nodes; ++d) p2[d] = static_cast<uint16_t>(d % 4);
  auto p1 = project_partition(l2, p2);
  for (uint32_t c = 0; c < l1.nodes; ++c)
    EXPECT_EQ(p1[c], l2.cluster_of[c] == kNoCluster ? kNoPart : p2[l2.cluster_of[c]]);
  fill_unassigned(p1, 4, &l1.vwgt);
  auto p0 = project_partition(l1, p1);
  std::vector<uint64_t> before(4, 0), after(4, 0);
  for (uint16_t q : p0)
    if (q != kNoPart) ++before[q];
  fill_unassigned(p0, 4);
  ASSERT_EQ(p0.size(), g.nodes);
  for (uint32_t v = 0; v < g.nodes; ++v) {
    ASSERT_LT(p0[v], 4);
    ++after[p0[v]];
    if (g.degree(v) > 0 && top(v) != kNoCluster) {
      EXPECT_EQ(p0[v], p2[top(v)]);
    }
    if (g.degree(v) > 0) {
      EXPECT_EQ(p0[v], p1[l1.cluster_of[v]]);
    }
  }
  // The fill puts each degree-0 node on the lightest part: no part ends above the larger of its
  // projected count and nodes / parts + 1.
  for (int q = 0; q < 4; ++q) EXPECT_LE(after[q], std::max<uint64_t>(before[q], g.nodes / 4 + 1));
  // Deterministic for a seed, whatever the thread count (chunked label propagation, contraction).
  EXPECT_EQ(coarsen(l1, cfg).cluster_of, l2.cluster_of);
  for (int threads : {1, 3}) {
    CoarsenConfig t = cfg;
    t.threads = threads;
    const CoarseGraph a = coarsen(g, t);
    EXPECT_EQ(a.cluster_of, l1.cluster_of);
    EXPECT_EQ(a.adjncy, l1.adjncy);
    EXPECT_EQ(a.adjwgt, l1.adjwgt);
    const CoarseGraph b = coarsen(a, t);
    EXPECT_EQ(b.cluster_of, l2.cluster_of);
    EXPECT_EQ(b.xadj, l2.xadj);
    EXPECT_EQ(b.adjncy, l2.adjncy);
  }
}

TEST(GnnCoarsen, RefinementNeverCutsMoreAndKeepsTheBalance) {
  const Graph& g = small_rmat();
  const auto hash = partition_graph(g, 4, Partitioner::hash, 1);
  std::vector<uint16_t> part_of = hash.part_of;
  const uint64_t moves = refine_partition(g, part_of, 4, 3, 0.03, 1);
  EXPECT_GT(moves, 0u);
  EXPECT_LT(cut_of(g, part_of), hash.cut_edges);
  std::vector<uint64_t> count(4, 0);
  for (uint16_t q : part_of) ++count[q];
  for (uint64_t c : count) EXPECT_LE(c, static_cast<uint64_t>(1.03 * g.nodes / 4) + 1);
}

TEST(GnnPartition, MultilevelMetisIsValidBalancedAndCutsWellBelowHash) {
  const Graph& g = small_rmat();
  const KnobValues pre{{"metis.coarsen_above_edges", "0"}, {"metis.coarse_nodes", "300"}};
  const auto multi = partition_graph(g, 4, "metis", pre, 1);
  const auto hash = partition_graph(g, 4, Partitioner::hash, 1);
  const auto random = partition_graph(g, 4, Partitioner::random, 1);
  EXPECT_EQ(partition_graph(g, 4, Partitioner::metis, 1).coarse_nodes, 0u);  // small graphs: plain METIS by default
  EXPECT_GT(multi.coarse_nodes, 0u);                                         // the pre-step ran
  EXPECT_GE(multi.coarsen_levels, 2);
  expect_valid_and_balanced(g, multi, 4);
  // Well below the baselines (hash and random cut about 3/4 of the edges with 4 parts; ours about 1/2).
  EXPECT_LT(multi.cut_edges, 0.75 * static_cast<double>(hash.cut_edges));
  EXPECT_LT(multi.cut_edges, 0.75 * static_cast<double>(random.cut_edges));
  // One level only (metis.max_levels=1) stops above the target.
  KnobValues one = pre;
  one["metis.max_levels"] = "1";
  const auto single = partition_graph(g, 4, "metis", one, 1);
  EXPECT_EQ(single.coarsen_levels, 1);
  EXPECT_GT(single.coarse_nodes, multi.coarse_nodes);
  // Deterministic for a seed, whatever the thread count.
  EXPECT_EQ(partition_graph(g, 4, "metis", pre, 1).part_of, multi.part_of);
  for (int threads : {1, 3}) EXPECT_EQ(partition_graph(g, 4, "metis", pre, 1, threads).part_of, multi.part_of);
  // Knobs are checked: unknown key, out of range.
  EXPECT_THROW(partition_graph(g, 4, "metis", {{"metis.typo", "1"}}, 1), Error);
  EXPECT_THROW(partition_graph(g, 4, "metis", {{"metis.coarse_nodes", "0"}}, 1), Error);
  EXPECT_THROW(partition_graph(g, 4, "metis", {{"metis.max_levels", "0"}}, 1), Error);
}
