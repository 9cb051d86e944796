// The independent cascade (IC) model. Each newly activated node u gets one chance to activate each
// out-neighbour v, succeeding with the edge's probability p(u, v); a node activates at most once.
// Equivalently (live-edge view) an edge is "live" with probability p, independently, and the
// activated set is everything reachable from the seeds through live edges.
//
// CascadeSimulator runs the seeds one after another over one shared realization, so seed k's
// marginal reward is the number of nodes it activates that seeds 1..k-1 did not (RSB's per-seed
// feedback), and the total is the cascade of the whole set. Visited marks are epoch stamps and the
// frontier is a preallocated array: no allocation per cascade.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/rng.h"
#include "influence/graph.h"

namespace dmlkit::influence {

// One realization of every edge of a Graph (aligned with its out-edge positions): live[i] != 0
// when out-edge i transmits. Sampled once per time step so that every algorithm is evaluated on
// the same realization (common random numbers).
void sample_live_edges(const Graph& g, Rng& rng, std::vector<uint8_t>& live);

class CascadeSimulator {
 public:
  explicit CascadeSimulator(uint32_t max_nodes = 0);

  // A fresh IC realization (coins flipped lazily with `rng`). `marginal`, if not empty, must have
  // seeds.size() entries and receives each seed's marginal number of activations (a seed repeated
  // or already activated gets 0). Returns the total number of activated nodes (seeds included).
  uint32_t run(const Graph& g, std::span<const NodeId> seeds, Rng& rng, std::span<uint32_t> marginal = {});
  // The same on a fixed realization from sample_live_edges().
  uint32_t run_live(const Graph& g, const std::vector<uint8_t>& live, std::span<const NodeId> seeds,
                    std::span<uint32_t> marginal = {});
  // Mean spread over `simulations` independent realizations (Monte Carlo).
  double mean_spread(const Graph& g, std::span<const NodeId> seeds, int simulations, Rng& rng);

 private:
  template <typename EdgeLive>
  uint32_t cascade(const Graph& g, std::span<const NodeId> seeds, std::span<uint32_t> marginal, EdgeLive&& live);
  void ensure(uint32_t n);

  std::vector<uint32_t> stamp_;
  std::vector<NodeId> frontier_;
  uint32_t epoch_ = 0;
};

// Exact expected spread by enumerating all 2^m live-edge realizations (tests; m <= 24).
double exact_spread(const Graph& g, std::span<const NodeId> seeds);

}  // namespace dmlkit::influence
