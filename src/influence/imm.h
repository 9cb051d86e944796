// IMM (Tang, Shi, Xiao, "Influence Maximization in Near-Linear Time: A Martingale Approach",
// SIGMOD 2015): estimate a lower bound on the optimal spread by doubling the number of RR sets
// until greedy coverage certifies it, then draw theta = lambda* / LB RR sets and return greedy
// max coverage, a (1 - 1/e - epsilon)-approximation with probability at least 1 - n^-ell.
// Written from the paper's algorithm description, with the node-selection RR sets drawn afresh
// (Chen 2018's fix); the RR-set count is capped (max_rr_sets) to
// bound memory, and the result says when the cap was hit.
#pragma once
#include <cstddef>
#include <vector>

#include "core/rng.h"
#include "influence/graph.h"

namespace dmlkit::influence {

struct ImmOptions {
  double epsilon = 0.1;
  double ell = 1.0;
  size_t max_rr_sets = 20'000'000;
};

struct ImmResult {
  std::vector<NodeId> seeds;
  size_t rr_sets = 0;
  double estimated_spread = 0;  // n * covered fraction of the final collection
  bool capped = false;
};

// Seeds among `present` (the roots and candidates); k is clamped to present.size().
ImmResult imm(const Graph& g, const std::vector<NodeId>& present, int k, const ImmOptions& options, Rng& rng);

}  // namespace dmlkit::influence
