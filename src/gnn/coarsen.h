// Our multilevel pre-step for METIS on graphs too large for it [A] (not a published algorithm as
// is; its pieces are standard): METIS k-way on a 10^7-node power-law graph needs more than 8 GB,
// so the graph is first coarsened over several levels. Each level clusters the previous level's
// graph by size-constrained label propagation (Raghavan et al. 2007; the size bound, on vertex
// weights, as in Meyerhenke, Sanders and Schulz, "Partitioning Complex Networks via
// Size-constrained Clustering", SEA 2014) and contracts the clusters into a weighted graph (vertex
// weight = fine nodes inside, edge weight = fine edges between two clusters). Coarsening stops
// once at most `target_nodes` supernodes remain (or at the level limit, or when a level merges
// nothing). METIS partitions the coarsest graph; the parts are projected back level by level,
// nodes of degree 0 at a level (dropped from the next) fill the lightest parts, and at every level
// a few rounds of balanced label-propagation refinement move boundary nodes to the part holding
// most of their (weighted) neighbours. The refinement is greedy (no FM hill climbing).
#pragma once
#include <cstdint>
#include <vector>

#include "gnn/graph.h"

namespace dmlkit::gnn {

inline constexpr uint32_t kNoCluster = 0xFFFFFFFFu;

struct CoarsenConfig {
  uint64_t target_nodes = 1'000'000;  // stop clustering once at most this many clusters remain
  uint64_t max_cluster_nodes = 0;     // size bound in fine nodes (0: 2 x ceil(active fine nodes / target_nodes))
  int rounds = 3;                     // label-propagation rounds at most
  uint64_t seed = 1;                  // visiting order
  int threads = 0;  // clustering and contraction threads (0 = all cores, at most 8); the result does not depend on it
};

// One coarsening level: the clusters of the finer level's nodes, contracted.
struct CoarseGraph {
  uint32_t nodes = 0;
  std::vector<uint32_t> cluster_of;                 // per node of the finer level; kNoCluster for its degree-0 nodes
  std::vector<int32_t> xadj, adjncy, adjwgt, vwgt;  // CSR in METIS's 32-bit layout; vwgt in fine nodes
  uint64_t edges() const { return adjncy.size() / 2; }
};

// Clusters the nodes of positive degree (clusters of at most max_cluster_nodes fine nodes, and at
// least 2 x ceil(active / target_nodes) allowed) and contracts the clusters. Deterministic for a
// seed, whatever the thread count. The first level is built from the graph, every further one
// from the previous level's weighted graph.
CoarseGraph coarsen(const Graph& g, const CoarsenConfig& cfg);
CoarseGraph coarsen(const CoarseGraph& finer, const CoarsenConfig& cfg);

inline constexpr uint16_t kNoPart = 0xFFFF;  // a node not assigned yet (parts are at most 4096)

// The part of every node of the finer level: its cluster's (coarse_part[cluster]); kNoPart for
// the nodes in no cluster (degree 0 at that level).
std::vector<uint16_t> project_partition(const CoarseGraph& cg, const std::vector<uint16_t>& coarse_part);

// Gives every kNoPart node, in id order, the part of least weight (vwgt: the level's vertex
// weights; nullptr = the graph itself, weight 1). A part's weight ends at most max(its weight
// before, total / parts + the heaviest node filled in).
void fill_unassigned(std::vector<uint16_t>& part_of, int parts, const std::vector<int32_t>* vwgt = nullptr);

// Balanced label-propagation refinement: each node of positive degree, in a seeded order, moves
// to the part holding most of its (weighted) neighbours when that cuts less and the part's weight
// stays within (1 + imbalance) x total weight / parts (+ 1 node). The total counts every node,
// but the parts' weights only the assigned ones: run before fill_unassigned, the nodes of degree
// 0 are slack the refinement may use and the fill then evens out. Returns the moves made.
uint64_t refine_partition(const Graph& g, std::vector<uint16_t>& part_of, int parts, int rounds, double imbalance,
                          uint64_t seed);
uint64_t refine_partition(const CoarseGraph& cg, std::vector<uint16_t>& part_of, int parts, int rounds,
                          double imbalance, uint64_t seed);

}  // namespace dmlkit::gnn
