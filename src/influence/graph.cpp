// CSR construction by counting sort: O(nodes + edges), buffers reused across time steps.
#include "influence/graph.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::influence {

void Graph::rebuild(uint32_t num_nodes, const std::vector<NodeId>& src, const std::vector<NodeId>& dst,
                    const std::vector<float>& prob, const std::vector<uint8_t>& edge_present) {
  num_nodes_ = num_nodes;
  const size_t m = src.size();
  const bool all = edge_present.empty();
  out_offset_.assign(num_nodes + 1, 0);
  in_offset_.assign(num_nodes + 1, 0);
  size_t count = 0;
  for (size_t e = 0; e < m; ++e) {
    if (!all && !edge_present[e]) continue;
    ++out_offset_[src[e] + 1];
    ++in_offset_[dst[e] + 1];
    ++count;
  }
  for (uint32_t u = 0; u < num_nodes; ++u) {
    out_offset_[u + 1] += out_offset_[u];
    in_offset_[u + 1] += in_offset_[u];
  }
  out_target_.resize(count);
  out_prob_.resize(count);
  in_source_.resize(count);
  in_prob_.resize(count);
  cursor_.assign(out_offset_.begin(), out_offset_.end() - 1);
  for (size_t e = 0; e < m; ++e) {
    if (!all && !edge_present[e]) continue;
    const uint32_t pos = cursor_[src[e]]++;
    out_target_[pos] = dst[e];
    out_prob_[pos] = prob[e];
  }
  cursor_.assign(in_offset_.begin(), in_offset_.end() - 1);
  for (size_t e = 0; e < m; ++e) {
    if (!all && !edge_present[e]) continue;
    const uint32_t pos = cursor_[dst[e]]++;
    in_source_[pos] = src[e];
    in_prob_[pos] = prob[e];
  }
}

Graph Graph::from_edges(const EdgeList& edges) {
  if (!edges.has_probabilities()) throw Error(edges.name + ": the graph has no edge probabilities");
  Graph g;
  g.rebuild(edges.num_nodes, edges.src, edges.dst, edges.prob, {});
  return g;
}

}  // namespace dmlkit::influence
