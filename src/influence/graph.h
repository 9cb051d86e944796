// Directed graphs for influence maximization: an edge list (the "universe" of every edge that
// may ever exist, as read from a file or generated) and a compressed sparse row Graph (the network
// of one time step: present edges only, with their current propagation probabilities), indexed
// both by source (cascades) and by target (reverse-reachable sets).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dmlkit::influence {

using NodeId = uint32_t;

struct EdgeList {
  std::string name;  // "NetHEPT", a file path, or a generator spec
  uint32_t num_nodes = 0;
  std::vector<NodeId> src;
  std::vector<NodeId> dst;
  std::vector<float> prob;  // empty when the source gave no probabilities
  size_t num_edges() const { return src.size(); }
  bool has_probabilities() const { return !prob.empty(); }
};

class Graph {
 public:
  // Builds the CSR of the edges e with edge_present[e] != 0 (all when edge_present is empty),
  // with probability prob[e]. Reuses this object's buffers (no allocation once sized).
  void rebuild(uint32_t num_nodes, const std::vector<NodeId>& src, const std::vector<NodeId>& dst,
               const std::vector<float>& prob, const std::vector<uint8_t>& edge_present);
  // Convenience: every edge of `edges` with its own probabilities (which must be present).
  static Graph from_edges(const EdgeList& edges);

  uint32_t num_nodes() const { return num_nodes_; }
  size_t num_edges() const { return out_target_.size(); }

  // Out-edges of u are positions out_begin(u) .. out_end(u)-1 of out_target()/out_prob().
  uint32_t out_begin(NodeId u) const { return out_offset_[u]; }
  uint32_t out_end(NodeId u) const { return out_offset_[u + 1]; }
  const std::vector<NodeId>& out_target() const { return out_target_; }
  const std::vector<float>& out_prob() const { return out_prob_; }
  // In-edges of v are positions in_begin(v) .. in_end(v)-1 of in_source()/in_prob().
  uint32_t in_begin(NodeId v) const { return in_offset_[v]; }
  uint32_t in_end(NodeId v) const { return in_offset_[v + 1]; }
  const std::vector<NodeId>& in_source() const { return in_source_; }
  const std::vector<float>& in_prob() const { return in_prob_; }

 private:
  uint32_t num_nodes_ = 0;
  std::vector<uint32_t> out_offset_, in_offset_;
  std::vector<NodeId> out_target_, in_source_;
  std::vector<float> out_prob_, in_prob_;
  std::vector<uint32_t> cursor_;
};

}  // namespace dmlkit::influence
