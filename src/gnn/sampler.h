// Mini-batch neighbour sampling over the real graph (GraphSAGE-style, as DistDGL's samplers do):
// a batch of seed nodes from the trainer's partition, then for each hop h the frontier
// F_{h+1} = F_h u (up to fanouts[h] distinct neighbours, without replacement, of every node of
// F_h; all of them when the degree is smaller). The input layer F_L holds every node whose
// features the trainer needs; each is fetched from the graph-store server of its partition.
//
// Assumptions [A] (knobs): fanouts are listed from the seeds outward (hop 1 first); the seeds of
// trainer (partition q, replica r) are q's training nodes shuffled per epoch (seeded), replica r
// taking every R-th batch; a partition with fewer nodes than it needs wraps around; the
// training nodes are a seeded `train_fraction` of all nodes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "gnn/graph.h"
#include "gnn/partition.h"

namespace dmlkit::gnn {

struct SamplerConfig {
  std::vector<int> fanouts{25, 10};
  int batch = 1024;
  double train_fraction = 1.0;  // share of nodes that are training seeds [A]
  uint64_t seed = 1;
  void validate() const;  // Error: fanout 0 or negative, batch < 1, fraction outside (0, 1]
};

// One trainer's mini-batch of one iteration, reduced to what the simulator needs.
struct BatchSample {
  std::vector<uint64_t> layer_nodes;      // |F_0| (seeds) .. |F_L| (input nodes)
  std::vector<uint64_t> layer_edges;      // sampled edges of hop h (h = 0 .. L-1)
  std::vector<uint64_t> nodes_per_part;   // input nodes (F_L) per owner partition
  std::vector<uint64_t> edges_per_part;   // sampled edges per partition of the sampled node
  uint64_t input_nodes() const { return layer_nodes.empty() ? 0 : layer_nodes.back(); }
  uint64_t sampled_edges() const;
};

// Reusable per-thread scratch (a stamp per node).
struct SampleScratch {
  std::vector<uint32_t> stamp;
  uint32_t epoch = 0;
  std::vector<uint32_t> frontier, next;
};

// Samples one batch from `seeds`. If `edges` is given, every sampled (node, neighbour) pair is
// appended (tests).
BatchSample sample_batch(const Graph& g, const Partitioning& parts, const std::vector<uint32_t>& seeds,
                         const std::vector<int>& fanouts, Rng& rng, SampleScratch& scratch,
                         std::vector<std::pair<uint32_t, uint32_t>>* edges = nullptr);

// The batches of every trainer for the first `iterations` iterations.
struct SampleSet {
  int trainers = 0;
  int iterations = 0;
  uint64_t train_nodes = 0;
  int iterations_per_epoch = 0;  // ceil(train nodes / (trainers x batch))
  std::vector<std::vector<BatchSample>> batches;  // [trainer][iteration]
  const BatchSample& at(int trainer, int iteration) const { return batches[trainer][iteration]; }
};

// trainer_partition[t] = the partition whose training nodes trainer t draws from. Results are
// cached in the process by (graph, partitioning, trainers, config, iterations), so every policy
// of a comparison and every candidate of the exploratory search share one sampling.
std::shared_ptr<const SampleSet> sample_iterations(const Graph& g, const Partitioning& parts,
                                                   const std::vector<int>& trainer_partition,
                                                   const SamplerConfig& cfg, int iterations, int threads);

}  // namespace dmlkit::gnn
