// Random graph generators for scaling experiments. Generated edges carry no probabilities: the
// dynamics (weighted cascade, trivalency, fluctuating) assign them.
#pragma once
#include <cstdint>

#include "core/rng.h"
#include "influence/graph.h"

namespace dmlkit::influence {

// Directed Erdos-Renyi G(n, p) with p = mean_out_degree / (n - 1): every ordered pair (u, v),
// u != v, is an edge independently with probability p (sampled by geometric skips, O(n + m)).
EdgeList erdos_renyi(uint32_t num_nodes, double mean_out_degree, Rng& rng);

// Barabasi-Albert preferential attachment: nodes arrive one by one, each linking to
// `links_per_node` distinct earlier nodes chosen with probability proportional to their degree
// (the first links_per_node + 1 nodes form a clique). With `reciprocal` (default) each link
// becomes two directed edges (influence flows both ways); otherwise one edge from the earlier node
// to the newcomer (a newcomer follows established users) [A: documented in docs/influence.md].
EdgeList preferential_attachment(uint32_t num_nodes, uint32_t links_per_node, Rng& rng, bool reciprocal = true);

}  // namespace dmlkit::influence
