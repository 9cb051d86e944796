// Erdos-Renyi by geometric skipping over the ordered pairs; Barabasi-Albert with the
// repeated-endpoints list (a node appears once per incident link, so a uniform pick from the list
// is a degree-proportional pick).
#include "influence/generators.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace dmlkit::influence {

EdgeList erdos_renyi(uint32_t num_nodes, double mean_out_degree, Rng& rng) {
  if (num_nodes < 2) throw Error("erdos-renyi: needs at least 2 nodes");
  if (!(mean_out_degree > 0) || mean_out_degree > num_nodes - 1)
    throw Error("erdos-renyi: mean out-degree must be in (0, nodes - 1], got " + std::to_string(mean_out_degree));
  EdgeList g;
  g.name = "er:nodes=" + std::to_string(num_nodes) + ",degree=" + std::to_string(mean_out_degree);
  g.num_nodes = num_nodes;
  const double p = mean_out_degree / (num_nodes - 1.0);
  const uint64_t per_row = num_nodes - 1ULL;
  const uint64_t total = static_cast<uint64_t>(num_nodes) * per_row;
  g.src.reserve(static_cast<size_t>(p * total * 1.05) + 16);
  g.dst.reserve(g.src.capacity());
  if (p >= 1.0) {
    for (uint64_t i = 0; i < total; ++i) {
      const auto u = static_cast<NodeId>(i / per_row), r = static_cast<NodeId>(i % per_row);
      g.src.push_back(u);
      g.dst.push_back(r >= u ? r + 1 : r);
    }
    return g;
  }
  const double log_q = std::log1p(-p);
  uint64_t i = 0;
  bool first = true;
  while (true) {
    const double skip = std::floor(std::log1p(-rng.uniform()) / log_q);
    if (skip >= static_cast<double>(total)) break;
    const uint64_t next = (first ? 0 : i + 1) + static_cast<uint64_t>(skip);
    if (next >= total) break;
    i = next;
    first = false;
    const auto u = static_cast<NodeId>(i / per_row), r = static_cast<NodeId>(i % per_row);
    g.src.push_back(u);
    g.dst.push_back(r >= u ? r + 1 : r);
  }
  return g;
}

EdgeList preferential_attachment(uint32_t num_nodes, uint32_t links_per_node, Rng& rng, bool reciprocal) {
  if (links_per_node < 1) throw Error("preferential-attachment: links per node must be at least 1");
  if (num_nodes < links_per_node + 2) throw Error("preferential-attachment: needs at least links per node + 2 nodes");
  EdgeList g;
  g.name = "ba:nodes=" + std::to_string(num_nodes) + ",m=" + std::to_string(links_per_node) +
           (reciprocal ? "" : ",reciprocal=0");
  g.num_nodes = num_nodes;
  std::vector<NodeId> endpoints;
  endpoints.reserve(2ULL * num_nodes * links_per_node);
  // One of a, b is the newer node; a one-way link goes from the earlier to the newer.
  auto link = [&](NodeId a, NodeId b) {
    if (reciprocal) {
      g.src.push_back(a);
      g.dst.push_back(b);
      g.src.push_back(b);
      g.dst.push_back(a);
    } else {
      g.src.push_back(std::min(a, b));
      g.dst.push_back(std::max(a, b));
    }
    endpoints.push_back(a);
    endpoints.push_back(b);
  };
  const NodeId clique = links_per_node + 1;
  for (NodeId a = 0; a < clique; ++a)
    for (NodeId b = a + 1; b < clique; ++b) link(a, b);
  std::vector<NodeId> chosen;
  for (NodeId v = clique; v < num_nodes; ++v) {
    chosen.clear();
    while (chosen.size() < links_per_node) {
      const NodeId t = endpoints[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(endpoints.size()) - 1))];
      if (std::find(chosen.begin(), chosen.end(), t) == chosen.end()) chosen.push_back(t);
    }
    for (NodeId t : chosen) link(v, t);
  }
  return g;
}

}  // namespace dmlkit::influence
