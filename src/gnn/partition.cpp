// Graph partitioning (see partition.h): the registry, the random and hash baselines, and the
// statistics every partitioner's result gets.
#include "gnn/partition.h"

#include <algorithm>

#include "core/error.h"
#include "core/rng.h"

namespace dmlkit::gnn {
namespace {

class RandomPartitioner final : public GraphPartitioner {
 public:
  void partition(const Graph& g, int parts, uint64_t seed, int, Partitioning& out) const override {
    Rng rng = Rng(seed).split(11);
    for (uint32_t v = 0; v < g.nodes; ++v) out.part_of[v] = static_cast<uint16_t>(rng.uniform_int(0, parts - 1));
  }
};

class HashPartitioner final : public GraphPartitioner {
 public:
  void partition(const Graph& g, int parts, uint64_t, int, Partitioning& out) const override {
    for (uint32_t v = 0; v < g.nodes; ++v)
      out.part_of[v] = static_cast<uint16_t>((static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL >> 32) % parts);
  }
};

}  // namespace

std::string to_string(Partitioner p) {
  switch (p) {
    case Partitioner::metis:
      return "metis";
    case Partitioner::random:
      return "random";
    case Partitioner::hash:
      return "hash";
  }
  return "?";
}

double Partitioning::imbalance() const {
  uint64_t total = 0, largest = 0;
  for (uint64_t n : nodes_per_part) total += n, largest = std::max(largest, n);
  return total == 0 ? 0 : static_cast<double>(largest) * parts / static_cast<double>(total) - 1;
}

const PartitionerRegistry& partitioner_registry() {
  static const PartitionerRegistry registry(
      {"partitioner", "partitioner", "", "--partitioner-param"},
      {metis_entry(),
       {"random", "each node to a uniformly random part (seeded)",
        [](const Knobs&) -> std::unique_ptr<GraphPartitioner> { return std::make_unique<RandomPartitioner>(); }},
       {"hash", "node id x golden ratio mod parts",
        [](const Knobs&) -> std::unique_ptr<GraphPartitioner> { return std::make_unique<HashPartitioner>(); }}});
  return registry;
}

Partitioning partition_graph(const Graph& g, int parts, const std::string& method, const KnobValues& params,
                             uint64_t seed, int threads) {
  const auto& reg = partitioner_registry();
  const auto& entry = reg.get(method);
  reg.check_knobs_any(params);
  if (parts < 1 || parts > 4096) throw Error("", 0, "partitions", "must be between 1 and 4096");
  if (static_cast<uint64_t>(parts) > g.nodes) throw Error("", 0, "partitions", "more partitions than nodes");
  Partitioning p;
  p.parts = parts;
  p.part_of.assign(g.nodes, 0);
  if (parts > 1) entry.make(Knobs(params, entry.knobs, reg.style().knob_flag))->partition(g, parts, seed, threads, p);
  p.nodes_per_part.assign(parts, 0);
  for (uint32_t v = 0; v < g.nodes; ++v) {
    ++p.nodes_per_part[p.part_of[v]];
    for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k)
      if (g.neighbours[k] > v && p.part_of[g.neighbours[k]] != p.part_of[v]) ++p.cut_edges;
  }
  return p;
}

Partitioning partition_graph(const Graph& g, int parts, Partitioner method, uint64_t seed) {
  return partition_graph(g, parts, to_string(method), {}, seed);
}

}  // namespace dmlkit::gnn
