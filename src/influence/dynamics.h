// A social network that changes over time (RSB paper's evaluation, spec C.4): the topology (edges
// and nodes appearing and disappearing) and the influence probabilities vary from step to step.
//
// Probability models:
//   static:           the probabilities read from the graph file, unchanged.
//   weighted-cascade: p_t(u, v) = 1 / indeg_t(v) over the edges present at step t (parallel
//                     edges counted), so it follows the changing topology.
//   trivalency:       p_t(u, v) drawn uniformly from {0.1, 0.01, 0.001} for every edge at every step.
//   fluctuating:      p_0(u, v) ~ U[0, p_max]; each step p moves by +-rate in its own direction
//                     (random initial direction) and bounces off 0 and p_max; rate = swing / steps
//                     [S: the thesis reads about 0.3/T per step; p_max = 0.1].
// Topology change [A]: each edge (and each node) is a two-state chain: initially present with
// probability `presence`; each step a present one disappears with probability `churn` and an
// absent one reappears with probability churn * presence / (1 - presence), so `presence` is also
// the long-run fraction present. An absent node has no edges, cannot be seeded or activated.
// Every random draw comes from the Rng given at construction (separate streams for topology and
// probabilities), so the same seed gives the same sequence of networks for every algorithm.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "influence/graph.h"

namespace dmlkit::influence {

enum class ProbabilityModel { Static, WeightedCascade, Trivalency, Fluctuating };

// "static", "weighted-cascade" (or "wc"), "trivalency" ("tr"), "fluctuating" ("fr"); throws Error.
ProbabilityModel parse_probability_model(const std::string& name);
std::string to_string(ProbabilityModel model);

struct DynamicsConfig {
  ProbabilityModel model = ProbabilityModel::Trivalency;
  std::vector<double> trivalency_levels{0.1, 0.01, 0.001};  // [S] spec C.4
  double fluctuating_max = 0.1;                             // [S] p bounces in [0, 0.1]
  double fluctuating_swing = 0.3;                           // [S] total |change| over the run; rate = swing / steps
  int steps = 100;                                          // horizon T (sets the fluctuating rate)
  double edge_churn = 0;                                    // [A] per-step disappearance probability of a present edge
  double edge_presence = 1;                                 // [A] initial and long-run fraction of edges present
  double node_churn = 0;                                    // [A] the same for nodes
  double node_presence = 1;
};

// Throws Error naming the option when a value is out of range.
void validate(const DynamicsConfig& config);
// The same, and for `static` without probabilities in the graph.
void validate(const DynamicsConfig& config, const EdgeList& universe);

class DynamicNetwork {
 public:
  // `universe` must outlive this object.
  DynamicNetwork(const EdgeList& universe, DynamicsConfig config, Rng rng);

  // Moves to the next step (the first call builds step 0) and rebuilds graph().
  void advance();
  int step() const { return step_; }
  const Graph& graph() const { return graph_; }
  uint32_t num_nodes() const { return universe_.num_nodes; }
  const std::vector<uint8_t>& node_present() const { return node_present_; }
  const std::vector<NodeId>& present_nodes() const { return present_nodes_; }
  size_t present_edges() const { return graph_.num_edges(); }

 private:
  void init_topology();
  void churn_topology();
  void update_probabilities();

  const EdgeList& universe_;
  DynamicsConfig config_;
  Rng topology_rng_;
  Rng prob_rng_;
  int step_ = -1;
  std::vector<uint8_t> edge_on_;       // the edge itself is up (before node presence)
  std::vector<uint8_t> edge_present_;  // edge_on_ and both endpoints present
  std::vector<uint8_t> node_present_;
  std::vector<NodeId> present_nodes_;
  std::vector<float> prob_;        // current probability of every universe edge
  std::vector<int8_t> direction_;  // fluctuating: +1 / -1
  std::vector<uint32_t> indegree_;
  Graph graph_;
};

}  // namespace dmlkit::influence
