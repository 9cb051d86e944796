// Partitioning the graph over the graph-store servers: METIS k-way (min edge cut, balanced node
// counts; Karypis & Kumar 1998, Debian libmetis-dev), or random or hash assignment as baselines.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gnn/graph.h"

namespace dmlkit::gnn {

enum class Partitioner { metis, random, hash };
Partitioner parse_partitioner(const std::string& name);  // metis | random | hash; else Error
std::string to_string(Partitioner p);

struct Partitioning {
  int parts = 1;
  std::vector<uint16_t> part_of;          // per node
  std::vector<uint64_t> nodes_per_part;
  uint64_t cut_edges = 0;                 // undirected edges whose ends lie in different parts
};

// `parts` >= 1; METIS with parts == 1 is the trivial partition. Deterministic for a given seed
// (METIS is given the seed; random draws from Rng(seed); hash = id * golden ratio mod parts).
Partitioning partition_graph(const Graph& g, int parts, Partitioner method, uint64_t seed);

}  // namespace dmlkit::gnn
