// Reverse-reachable (RR) sets (Borgs et al. 2014; Tang et al. 2014/2015): pick a root uniformly
// among the present nodes, flip each in-edge's coin backwards from it, and record every node
// reached. A seed set's expected spread is n times the probability that it hits a random RR set,
// so maximum coverage over many RR sets approximates influence maximization.
#pragma once
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "influence/graph.h"

namespace dmlkit::influence {

class RRCollection {
 public:
  // Appends `count` RR sets of `g`, roots drawn uniformly from `roots` (the present nodes).
  void generate(const Graph& g, const std::vector<NodeId>& roots, size_t count, Rng& rng);
  size_t size() const { return offset_.size() - 1; }
  size_t total_nodes() const { return nodes_.size(); }
  void clear();

  // Greedy maximum coverage: k nodes (those with candidate[v] != 0 when candidate is non-empty),
  // each maximizing the number of not-yet-covered RR sets it hits. `covered` receives the
  // number of sets covered. Ties go to the lowest id (deterministic). Fewer than k nodes are
  // returned only when fewer candidates exist.
  std::vector<NodeId> max_coverage(uint32_t num_nodes, int k, const std::vector<uint8_t>& candidate,
                                   size_t* covered = nullptr) const;

 private:
  std::vector<uint64_t> offset_{0};
  std::vector<NodeId> nodes_;
  std::vector<uint32_t> stamp_;
  std::vector<NodeId> queue_;
  uint32_t epoch_ = 0;
};

}  // namespace dmlkit::influence
