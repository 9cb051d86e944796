// Neighbour sampling: fanouts respected, only real neighbours, bytes from the sample.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.h"
#include "gnn/sampler.h"
#include "gnn_test_util.h"

using namespace dmlkit;
using namespace dmlkit::gnn;

TEST(GnnSampler, RespectsFanoutsAndReturnsOnlyRealNeighbours) {
  const Graph g = load_graph("NetHEPT", GraphFormat::Auto, fixture::data_dir(), 1);
  const auto parts = partition_graph(g, 4, Partitioner::metis, 1);
  std::vector<uint32_t> seeds;
  for (uint32_t v = 0; v < 300; ++v) seeds.push_back(v * 37 % g.nodes);
  const std::vector<int> fanouts{5, 3};
  Rng rng(7);
  SampleScratch scratch;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  const BatchSample b = sample_batch(g, parts, seeds, fanouts, rng, scratch, &edges);
  ASSERT_EQ(b.layer_edges.size(), 2u);
  // Every pair is an edge of the graph, and no node gets more than the hop's fanout, all distinct.
  std::map<uint32_t, std::vector<uint32_t>> per_node_hop0;
  size_t k = 0;
  for (int h = 0; h < 2; ++h) {
    std::map<uint32_t, std::set<uint32_t>> picked;
    for (uint64_t e = 0; e < b.layer_edges[h]; ++e, ++k) {
      const auto [v, u] = edges[k];
      EXPECT_TRUE(std::binary_search(g.neighbours.begin() + g.offsets[v], g.neighbours.begin() + g.offsets[v + 1], u))
          << v << " -> " << u << " is not an edge";
      EXPECT_TRUE(picked[v].insert(u).second) << "neighbour sampled twice";
    }
    for (const auto& [v, us] : picked) {
      EXPECT_LE(us.size(), static_cast<size_t>(fanouts[h]));
      EXPECT_EQ(us.size(), std::min<uint64_t>(g.degree(v), fanouts[h]));  // all of them when the degree is small
    }
  }
  EXPECT_EQ(k, edges.size());
  // The input nodes are counted once, by owner partition.
  uint64_t sum = 0;
  for (auto n : b.nodes_per_part) sum += n;
  EXPECT_EQ(sum, b.input_nodes());
  EXPECT_GE(b.input_nodes(), b.layer_nodes[0]);
}

TEST(GnnSampler, FanoutZeroIsAnError) {
  SamplerConfig c;
  c.fanouts = {25, 0};
  EXPECT_THROW(c.validate(), Error);
}

TEST(GnnSampler, SameSeedSameBatchesAndCached) {
  auto s = fixture::make_setup(2, 2, "v100:2");
  SamplerConfig c;
  c.batch = 128;
  auto a = sample_iterations(s.graph, s.parts, s.job.trainer_partition, c, 3, 2);
  auto b = sample_iterations(s.graph, s.parts, s.job.trainer_partition, c, 3, 1);
  EXPECT_EQ(a.get(), b.get());  // cached
  c.seed = 2;
  auto d = sample_iterations(s.graph, s.parts, s.job.trainer_partition, c, 3, 1);
  EXPECT_NE(a.get(), d.get());
  EXPECT_NE(a->at(0, 0).nodes_per_part, d->at(0, 0).nodes_per_part);
}
