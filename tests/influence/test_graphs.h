// Small hand-made graphs shared by the influence tests.
#pragma once
#include "influence/graph.h"

namespace dmlkit::influence::testing {

inline EdgeList edges(uint32_t n, std::vector<NodeId> src, std::vector<NodeId> dst, std::vector<float> prob) {
  EdgeList g;
  g.name = "test";
  g.num_nodes = n;
  g.src = std::move(src);
  g.dst = std::move(dst);
  g.prob = std::move(prob);
  return g;
}

// 0 -> 1 -> 2, both edges with probability 0.5.
inline EdgeList path3() { return edges(3, {0, 1}, {1, 2}, {0.5f, 0.5f}); }

// A 6-node graph with a diamond, a parallel edge and a tail.
inline EdgeList diamond() {
  return edges(6, {0, 0, 1, 2, 3, 1, 3, 4}, {1, 2, 3, 3, 4, 2, 4, 5},
               {0.5f, 0.3f, 0.4f, 0.6f, 0.7f, 0.2f, 0.25f, 0.9f});
}

}  // namespace dmlkit::influence::testing
