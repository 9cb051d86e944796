// Partitioning the graph over the graph-store servers (registry: partitioner_registry(), knobs via
// --partitioner-param): METIS k-way (min edge cut, balanced node counts; Karypis & Kumar 1998,
// Debian libmetis-dev; above metis.coarsen_above_edges edges after our multilevel pre-step,
// coarsen.h [A]), or random or hash assignment as baselines.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/knobs.h"
#include "core/registry.h"
#include "gnn/graph.h"

namespace dmlkit::gnn {

enum class Partitioner { metis, random, hash };
std::string to_string(Partitioner p);

struct Partitioning {
  int parts = 1;
  std::vector<uint16_t> part_of;          // per node
  std::vector<uint64_t> nodes_per_part;
  uint64_t cut_edges = 0;                 // undirected edges whose ends lie in different parts
  uint64_t coarse_nodes = 0;              // metis with the pre-step: supernodes METIS saw (0 = plain)
  uint64_t coarse_edges = 0;              // ... and the edges between them
  int coarsen_levels = 0;                 // ... and the coarsening levels above the graph
  double coarsen_s = 0, metis_s = 0, refine_s = 0;  // wall time of the pre-step's phases (bench)
  uint64_t refine_moves = 0;              // metis with the pre-step: nodes moved by the refinement
  double imbalance() const;               // largest part / (nodes / parts) - 1
};

class GraphPartitioner {
 public:
  virtual ~GraphPartitioner() = default;
  // part_of filled; the caller (partition_graph) counts nodes per part and cut edges. `threads`
  // (0 = all cores) may change the time, never the result.
  virtual void partition(const Graph& g, int parts, uint64_t seed, int threads, Partitioning& out) const = 0;
};

using PartitionerFactory = std::unique_ptr<GraphPartitioner> (*)(const Knobs& knobs);
using PartitionerEntry = RegistryEntry<PartitionerFactory>;
using PartitionerRegistry = Registry<PartitionerEntry>;
const PartitionerRegistry& partitioner_registry();
PartitionerEntry metis_entry();  // metis_partition.cpp

// `parts` in [1, 4096]; parts == 1 is the trivial partition. Unknown name or knob: Error.
// Deterministic for a given seed (METIS is given the seed; random draws from Rng(seed); hash =
// id * golden ratio mod parts), whatever `threads` (0 = all cores; metis's pre-step uses at most 8).
Partitioning partition_graph(const Graph& g, int parts, const std::string& method, const KnobValues& params,
                             uint64_t seed, int threads = 0);
Partitioning partition_graph(const Graph& g, int parts, Partitioner method, uint64_t seed);  // default knobs

}  // namespace dmlkit::gnn
