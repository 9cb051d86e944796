// Graph partitioning (see partition.h).
#include "gnn/partition.h"

#include <metis.h>

#include <stdexcept>

#include "core/error.h"
#include "core/rng.h"

namespace dmlkit::gnn {

Partitioner parse_partitioner(const std::string& name) {
  if (name == "metis") return Partitioner::metis;
  if (name == "random") return Partitioner::random;
  if (name == "hash") return Partitioner::hash;
  throw Error("", 0, "partitioner", "unknown partitioner '" + name + "' (known: metis, random, hash)");
}

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

Partitioning partition_graph(const Graph& g, int parts, Partitioner method, uint64_t seed) {
  if (parts < 1 || parts > 4096) throw Error("", 0, "partitions", "must be between 1 and 4096");
  if (static_cast<uint64_t>(parts) > g.nodes) throw Error("", 0, "partitions", "more partitions than nodes");
  Partitioning p;
  p.parts = parts;
  p.part_of.assign(g.nodes, 0);
  if (parts > 1 && method == Partitioner::metis) {
    static_assert(sizeof(idx_t) == sizeof(uint32_t), "METIS built with 64-bit idx_t");
    if (g.neighbours.size() > 0x7FFFFFFFULL) throw Error("", 0, "partitioner", "graph too large for 32-bit METIS");
    idx_t n = static_cast<idx_t>(g.nodes), ncon = 1, nparts = parts, objval = 0;
    std::vector<idx_t> xadj(g.offsets.begin(), g.offsets.end());
    // The neighbour ids are below 2^31 (checked above), so the uint32 array is a valid idx_t array.
    idx_t* adjncy = reinterpret_cast<idx_t*>(const_cast<uint32_t*>(g.neighbours.data()));
    std::vector<idx_t> out(g.nodes);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7FFFFFFF);
    const int rc = METIS_PartGraphKway(&n, &ncon, xadj.data(), adjncy, nullptr, nullptr, nullptr, &nparts, nullptr,
                                       nullptr, options, &objval, out.data());
    if (rc != METIS_OK) throw std::runtime_error("METIS_PartGraphKway failed with status " + std::to_string(rc));
    for (uint32_t v = 0; v < g.nodes; ++v) p.part_of[v] = static_cast<uint16_t>(out[v]);
  } else if (parts > 1 && method == Partitioner::random) {
    Rng rng = Rng(seed).split(11);
    for (uint32_t v = 0; v < g.nodes; ++v) p.part_of[v] = static_cast<uint16_t>(rng.uniform_int(0, parts - 1));
  } else if (parts > 1) {
    for (uint32_t v = 0; v < g.nodes; ++v)
      p.part_of[v] = static_cast<uint16_t>((static_cast<uint64_t>(v) * 0x9E3779B97F4A7C15ULL >> 32) % parts);
  }
  p.nodes_per_part.assign(parts, 0);
  for (uint32_t v = 0; v < g.nodes; ++v) {
    ++p.nodes_per_part[p.part_of[v]];
    for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k)
      if (g.neighbours[k] > v && p.part_of[g.neighbours[k]] != p.part_of[v]) ++p.cut_edges;
  }
  return p;
}

}  // namespace dmlkit::gnn
