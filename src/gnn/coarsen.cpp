// The multilevel pre-step for METIS (see coarsen.h).
#include "gnn/coarsen.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/rng.h"

namespace dmlkit::gnn {
namespace {

std::vector<uint32_t> visiting_order(const Graph& g, uint64_t seed, uint64_t stream) {
  std::vector<uint32_t> order;
  order.reserve(g.nodes);
  for (uint32_t v = 0; v < g.nodes; ++v)
    if (g.degree(v) > 0) order.push_back(v);
  Rng rng = Rng(seed).split(stream);
  rng.shuffle(order.begin(), order.end());
  return order;
}

}  // namespace

uint64_t CoarseGraph::memory_bytes() const {
  return (cluster_of.size() + xadj.size() + adjncy.size() + adjwgt.size() + vwgt.size()) * 4;
}

CoarseGraph coarsen(const Graph& g, const CoarsenConfig& cfg) {
  if (cfg.target_nodes < 1) throw std::logic_error("coarsen: target_nodes must be >= 1");
  const uint32_t n = g.nodes;
  std::vector<uint32_t> order = visiting_order(g, cfg.seed, 71);
  const uint64_t active = order.size();
  // Size bound: the caller's (a small fraction of a part, so no supernode upsets the balance),
  // and at least twice the mean cluster size the target asks for.
  const uint64_t needed = 2 * ((active + cfg.target_nodes - 1) / cfg.target_nodes);
  const uint32_t bound = static_cast<uint32_t>(
      std::min<uint64_t>(0xFFFFFFF0u, std::max<uint64_t>({2, needed, cfg.max_cluster_nodes})));

  std::vector<uint32_t> label(n), size(n, 1), conn(n, 0);
  std::iota(label.begin(), label.end(), 0u);
  std::vector<uint32_t> touched;
  uint64_t clusters = active;
  for (int round = 0; round < cfg.rounds && clusters > cfg.target_nodes; ++round) {
    uint64_t moved = 0;
    for (uint32_t v : order) {
      touched.clear();
      for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
        const uint32_t c = label[g.neighbours[k]];
        if (conn[c]++ == 0) touched.push_back(c);
      }
      const uint32_t own = label[v];
      const uint32_t stay = conn[own];  // neighbours already in v's cluster (0 if none)
      uint32_t best = own, best_w = 0;
      for (uint32_t c : touched) {
        // Most connections first; ties to the smaller cluster, then the lower id.
        if (c == own || size[c] >= bound) continue;
        if (conn[c] > best_w || (conn[c] == best_w && (size[c] < size[best] || (size[c] == size[best] && c < best)))) {
          best = c;
          best_w = conn[c];
        }
      }
      for (uint32_t c : touched) conn[c] = 0;
      if (best == own || best_w <= stay) continue;  // stay unless strictly better connected
      if (--size[own] == 0) --clusters;
      ++size[best];
      label[v] = best;
      ++moved;
    }
    if (moved == 0) break;
  }
  std::vector<uint32_t>().swap(conn);
  std::vector<uint32_t>().swap(order);

  // Compact cluster ids (in node order, so deterministic), degree-0 nodes in none.
  CoarseGraph cg;
  std::vector<uint32_t> id(n, kNoCluster);
  cg.cluster_of.assign(n, kNoCluster);
  uint32_t C = 0;
  for (uint32_t v = 0; v < n; ++v) {
    if (g.degree(v) == 0) continue;
    uint32_t& c = id[label[v]];
    if (c == kNoCluster) c = C++;
    cg.cluster_of[v] = c;
  }
  std::vector<uint32_t>().swap(label);
  std::vector<uint32_t>().swap(size);
  cg.nodes = C;

  // Members by cluster (counting sort), reusing `id` as the member list.
  std::vector<uint64_t> start(static_cast<size_t>(C) + 1, 0);
  for (uint32_t v = 0; v < n; ++v)
    if (cg.cluster_of[v] != kNoCluster) ++start[cg.cluster_of[v] + 1];
  for (uint32_t c = 0; c < C; ++c) start[c + 1] += start[c];
  std::vector<uint64_t> fill(start.begin(), start.end() - 1);
  std::vector<uint32_t>& members = id;
  for (uint32_t v = 0; v < n; ++v)
    if (cg.cluster_of[v] != kNoCluster) members[fill[cg.cluster_of[v]]++] = v;
  std::vector<uint64_t>().swap(fill);

  // Contraction: per cluster, its neighbouring clusters with the number of edges to each.
  cg.xadj.assign(static_cast<size_t>(C) + 1, 0);
  cg.vwgt.assign(C, 0);
  std::vector<uint32_t> mark(C, kNoCluster);
  std::vector<uint64_t> pos(C, 0);
  cg.adjncy.reserve(g.neighbours.size() / 4);
  cg.adjwgt.reserve(g.neighbours.size() / 4);
  for (uint32_t c = 0; c < C; ++c) {
    cg.vwgt[c] = static_cast<int32_t>(start[c + 1] - start[c]);
    for (uint64_t i = start[c]; i < start[c + 1]; ++i) {
      const uint32_t v = members[i];
      for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
        const uint32_t d = cg.cluster_of[g.neighbours[k]];
        if (d == c) continue;
        if (mark[d] != c) {
          mark[d] = c;
          pos[d] = cg.adjncy.size();
          cg.adjncy.push_back(static_cast<int32_t>(d));
          cg.adjwgt.push_back(1);
        } else {
          ++cg.adjwgt[pos[d]];
        }
      }
    }
    if (cg.adjncy.size() > 0x7FFFFFFFULL) throw std::runtime_error("coarsen: coarse graph too large for 32-bit METIS");
    cg.xadj[c + 1] = static_cast<int32_t>(cg.adjncy.size());
  }
  cg.adjncy.shrink_to_fit();
  cg.adjwgt.shrink_to_fit();
  return cg;
}

std::vector<uint16_t> project_partition(const CoarseGraph& cg, const std::vector<int32_t>& coarse_part, int parts) {
  const size_t n = cg.cluster_of.size();
  std::vector<uint16_t> part_of(n, 0);
  std::vector<uint64_t> count(parts, 0);
  for (size_t v = 0; v < n; ++v)
    if (cg.cluster_of[v] != kNoCluster) ++count[part_of[v] = static_cast<uint16_t>(coarse_part[cg.cluster_of[v]])];
  for (size_t v = 0; v < n; ++v) {
    if (cg.cluster_of[v] != kNoCluster) continue;
    const int q = static_cast<int>(std::min_element(count.begin(), count.end()) - count.begin());
    part_of[v] = static_cast<uint16_t>(q);
    ++count[q];
  }
  return part_of;
}

uint64_t refine_partition(const Graph& g, std::vector<uint16_t>& part_of, int parts, int rounds, double imbalance,
                          uint64_t seed) {
  if (rounds <= 0 || parts < 2) return 0;
  const uint64_t limit = static_cast<uint64_t>((1 + imbalance) * static_cast<double>(g.nodes) / parts) + 1;
  std::vector<uint64_t> count(parts, 0);
  for (uint32_t v = 0; v < g.nodes; ++v) ++count[part_of[v]];
  const std::vector<uint32_t> order = visiting_order(g, seed, 73);
  std::vector<uint32_t> conn(parts, 0);
  std::vector<int> touched;
  uint64_t total = 0;
  for (int round = 0; round < rounds; ++round) {
    uint64_t moved = 0;
    for (uint32_t v : order) {
      touched.clear();
      for (uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
        const int q = part_of[g.neighbours[k]];
        if (conn[q]++ == 0) touched.push_back(q);
      }
      const int own = part_of[v];
      int best = own;
      for (int q : touched)
        if (q != own && count[q] + 1 <= limit &&
            (conn[q] > conn[best] || (conn[q] == conn[best] && best != own && q < best)))
          best = q;
      if (best != own && conn[best] > conn[own]) {
        --count[own];
        ++count[best];
        part_of[v] = static_cast<uint16_t>(best);
        ++moved;
      }
      for (int q : touched) conn[q] = 0;
    }
    total += moved;
    if (moved == 0) break;
  }
  return total;
}

}  // namespace dmlkit::gnn
