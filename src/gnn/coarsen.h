// Our multilevel pre-step for METIS on graphs too large for it [A] (not a published algorithm as
// is; its pieces are standard): METIS k-way on a 10^7-node power-law graph needs more than 8 GB,
// so the graph is first clustered by size-constrained label propagation (Raghavan et al. 2007;
// the size bound as in Meyerhenke, Sanders and Schulz, "Partitioning Complex Networks via
// Size-constrained Clustering", SEA 2014), the clusters are contracted into a weighted graph of
// about `target_nodes` supernodes (vertex weight = cluster size, edge weight = edges between
// clusters), METIS partitions that graph, the parts are projected back to the nodes, degree-0
// nodes fill the lightest parts, and a few rounds of balanced label-propagation refinement move
// boundary nodes to the part holding most of their neighbours. One level of contraction only
// (METIS coarsens further itself); the refinement is greedy (no FM hill climbing).
#pragma once
#include <cstdint>
#include <vector>

#include "gnn/graph.h"

namespace dmlkit::gnn {

inline constexpr uint32_t kNoCluster = 0xFFFFFFFFu;

struct CoarsenConfig {
  uint64_t target_nodes = 1'000'000;  // stop clustering once at most this many clusters remain
  uint64_t max_cluster_nodes = 0;     // size bound (0: 2 x ceil(active nodes / target_nodes))
  int rounds = 5;                     // label-propagation rounds at most
  uint64_t seed = 1;                  // visiting order
};

struct CoarseGraph {
  uint32_t nodes = 0;
  std::vector<uint32_t> cluster_of;        // per fine node; kNoCluster for degree-0 nodes
  std::vector<int32_t> xadj, adjncy, adjwgt, vwgt;  // CSR in METIS's 32-bit layout
  uint64_t memory_bytes() const;
};

// Clusters the nodes of positive degree (at most max_cluster_nodes per cluster, and at least
// 2 x ceil(active / target_nodes) allowed) and contracts the clusters. Deterministic for a seed.
CoarseGraph coarsen(const Graph& g, const CoarsenConfig& cfg);

// Gives every fine node the part of its cluster (coarse_part[cluster]); degree-0 nodes, in id
// order, go to the part with the fewest nodes.
std::vector<uint16_t> project_partition(const CoarseGraph& cg, const std::vector<int32_t>& coarse_part, int parts);

// Balanced label-propagation refinement: each node of positive degree, in a seeded order, moves
// to the part holding most of its neighbours when that cuts fewer edges and the part stays within
// (1 + imbalance) x nodes / parts. Returns the moves made.
uint64_t refine_partition(const Graph& g, std::vector<uint16_t>& part_of, int parts, int rounds, double imbalance,
                          uint64_t seed);

}  // namespace dmlkit::gnn
