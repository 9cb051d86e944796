// The multilevel pre-step for METIS (see coarsen.h). Every step is written once for a view of a
// level's adjacency: the graph itself (unit weights, 64-bit offsets) or a coarse level (METIS's
// weighted 32-bit CSR).
#include "gnn/coarsen.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "core/parallel_for.h"
#include "core/rng.h"

namespace dmlkit::gnn {
namespace {

struct FineView {
  const Graph& g;
  uint32_t nodes() const { return g.nodes; }
  uint64_t begin(uint32_t v) const { return g.offsets[v]; }
  uint64_t end(uint32_t v) const { return g.offsets[v + 1]; }
  uint32_t target(uint64_t k) const { return g.neighbours[k]; }
  uint32_t edge_weight(uint64_t) const { return 1; }
  uint32_t weight(uint32_t) const { return 1; }
  void prefetch_offsets(uint32_t v) const { __builtin_prefetch(&g.offsets[v]); }
  void prefetch_row(uint32_t v) const { __builtin_prefetch(g.neighbours.data() + g.offsets[v]); }
};

struct CoarseView {
  const CoarseGraph& g;
  uint32_t nodes() const { return g.nodes; }
  uint64_t begin(uint32_t v) const { return static_cast<uint64_t>(g.xadj[v]); }
  uint64_t end(uint32_t v) const { return static_cast<uint64_t>(g.xadj[v + 1]); }
  uint32_t target(uint64_t k) const { return static_cast<uint32_t>(g.adjncy[k]); }
  uint32_t edge_weight(uint64_t k) const { return static_cast<uint32_t>(g.adjwgt[k]); }
  uint32_t weight(uint32_t v) const { return static_cast<uint32_t>(g.vwgt[v]); }
  void prefetch_offsets(uint32_t v) const { __builtin_prefetch(&g.xadj[v]); }
  void prefetch_row(uint32_t v) const {
    __builtin_prefetch(g.adjncy.data() + g.xadj[v]);
    __builtin_prefetch(g.adjwgt.data() + g.xadj[v]);
  }
};

// The nodes are visited in a shuffled order, so each row is a random access: fetch the offsets
// of the node 16 ahead and the row of the node 8 ahead (whose offsets came in 8 nodes ago).
template <class View>
void prefetch_ahead(const View& gv, const std::vector<uint32_t>& order, size_t i, size_t end) {
  if (i + 16 < end) gv.prefetch_offsets(order[i + 16]);
  if (i + 8 < end) gv.prefetch_row(order[i + 8]);
}

// Bits of a connection table for a row of `len` entries: at least 2 len slots, at least 16.
int table_bits(uint64_t len) { return len == 0 ? 4 : std::max(4, static_cast<int>(std::bit_width(2 * len - 1))); }

// Threads for clustering and contraction: each holds arrays of a level's size (4-8 bytes per
// node), so at most 8 whatever the core count.
int worker_threads(int requested) { return std::clamp(resolve_threads(requested), 1, 8); }

template <class View>
std::vector<uint32_t> visiting_order(const View& gv, uint64_t seed, uint64_t stream) {
  std::vector<uint32_t> order;
  order.reserve(gv.nodes());
  for (uint32_t v = 0; v < gv.nodes(); ++v)
    if (gv.end(v) > gv.begin(v)) order.push_back(v);
  Rng rng = Rng(seed).split(stream);
  rng.shuffle(order.begin(), order.end());
  return order;
}

// Size-constrained label propagation: the cluster label of every node (degree-0 nodes keep their
// own). The visiting order is cut into about 256 chunks (64 to 16,384 nodes): within a chunk,
// every node's choice is computed from the labels and sizes at the chunk's start (on all threads,
// each a slice of the chunk), then the moves are applied in order, the size bound checked again.
// So the result depends on the seed and the graph, not on the thread count; a node rarely has a
// neighbour in its own chunk, so the choices are nearly those of the one-at-a-time rule.
template <class View>
std::vector<uint32_t> cluster_labels(const View& gv, const CoarsenConfig& cfg) {
  if (cfg.target_nodes < 1) throw std::logic_error("coarsen: target_nodes must be >= 1");
  const uint32_t n = gv.nodes();
  std::vector<uint32_t> order = visiting_order(gv, cfg.seed, 71);
  uint64_t active_weight = 0;
  for (uint32_t v : order) active_weight += gv.weight(v);
  // Size bound: the caller's (a small fraction of a part, so no supernode upsets the balance),
  // and at least twice the mean cluster weight the target asks for.
  const uint64_t needed = 2 * ((active_weight + cfg.target_nodes - 1) / cfg.target_nodes);
  const uint64_t bound = std::min<uint64_t>(0xFFFFFFF0u, std::max<uint64_t>({2, needed, cfg.max_cluster_nodes}));

  std::vector<uint32_t> label(n), size(n);
  std::iota(label.begin(), label.end(), 0u);
  for (uint32_t v = 0; v < n; ++v) size[v] = gv.weight(v);
  const int T = worker_threads(cfg.threads);
  // Per thread, the connection weight to each neighbouring cluster of the node at hand: an
  // open-addressing table of at least twice the row's length (a prefix of arrays sized for the
  // longest row, kept empty between rows), so a short row's counts stay in L1 instead of being
  // scattered over an array of all clusters.
  uint64_t longest = 1;
  for (uint32_t v : order) longest = std::max(longest, gv.end(v) - gv.begin(v));
  const int max_bits = table_bits(longest);
  struct Counts {
    std::vector<uint32_t> key, weight, slots;  // key kNoCluster: empty slot; slots: filled, in first-seen order
  };
  std::vector<Counts> counts(T);
  for (auto& c : counts) {
    c.key.assign(size_t{1} << max_bits, kNoCluster);
    c.weight.assign(size_t{1} << max_bits, 0);
  }
  const size_t chunk = std::clamp<size_t>(order.size() / 256, 64, 16384);
  std::vector<uint32_t> choice(chunk);
  // v's best cluster given the current labels: most connection weight, ties to the lighter
  // cluster, then the lower id; its own unless strictly better connected than staying.
  auto choose = [&](uint32_t v, Counts& cn) {
    const uint64_t b = gv.begin(v), e = gv.end(v);
    const int bits = table_bits(e - b);
    const uint32_t mask = (uint32_t{1} << bits) - 1;
    auto slot_of = [&](uint32_t c) {
      uint32_t h = static_cast<uint32_t>((c * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
      while (cn.key[h] != c && cn.key[h] != kNoCluster) h = (h + 1) & mask;
      return h;
    };
    cn.slots.clear();
    for (uint64_t k = b; k < e; ++k) {
      if (k + 16 < e) __builtin_prefetch(&label[gv.target(k + 16)]);
      const uint32_t c = label[gv.target(k)];
      const uint32_t h = slot_of(c);
      if (cn.key[h] == kNoCluster) {
        cn.key[h] = c;
        cn.slots.push_back(h);
        __builtin_prefetch(&size[c]);
      }
      cn.weight[h] += gv.edge_weight(k);
    }
    const uint32_t own = label[v], w = gv.weight(v);
    const uint32_t own_slot = slot_of(own);
    const uint32_t stay = cn.key[own_slot] == own ? cn.weight[own_slot] : 0;  // edge weight to v's own cluster
    uint32_t best = own, best_w = 0;
    for (uint32_t h : cn.slots) {
      const uint32_t c = cn.key[h], cw = cn.weight[h];
      // A cluster no better connected than staying, or than the best so far, cannot win: its
      // size is not looked up.
      if (c == own || cw <= stay || cw < best_w || static_cast<uint64_t>(size[c]) + w > bound) continue;
      if (cw > best_w || size[c] < size[best] || (size[c] == size[best] && c < best)) {
        best = c;
        best_w = cw;
      }
    }
    for (uint32_t h : cn.slots) cn.key[h] = kNoCluster, cn.weight[h] = 0;
    return best_w > stay ? best : own;
  };
  uint64_t clusters = order.size();
  for (int round = 0; round < cfg.rounds && clusters > cfg.target_nodes; ++round) {
    uint64_t moved = 0;
    for (size_t c0 = 0; c0 < order.size() && clusters > cfg.target_nodes; c0 += chunk) {
      const size_t len = std::min(chunk, order.size() - c0);
      // parallel_for starts its threads per call: a small chunk runs on fewer (the choices do not
      // depend on the thread count, only on the labels at the chunk's start).
      const int Tc = static_cast<int>(std::clamp<size_t>(len / 1024, 1, static_cast<size_t>(T)));
      parallel_for(Tc, Tc, [&](size_t t) {
        const size_t first = c0 + len * t / Tc, last = c0 + len * (t + 1) / Tc;
        for (size_t i = first; i < last; ++i) {
          prefetch_ahead(gv, order, i, last);
          choice[i - c0] = choose(order[i], counts[t]);
        }
      });
      for (size_t i = 0; i < len; ++i) {
        const uint32_t v = order[c0 + i], own = label[v], best = choice[i], w = gv.weight(v);
        // Skip if the chosen cluster filled up or emptied (its members left) since the chunk began.
        if (best == own || size[best] == 0 || static_cast<uint64_t>(size[best]) + w > bound) continue;
        size[own] -= w;
        if (size[own] == 0) --clusters;
        size[best] += w;
        label[v] = best;
        ++moved;
        if (clusters <= cfg.target_nodes) break;
      }
    }
    if (moved == 0) break;
  }
  return label;
}

// Contracts the clusters `label` describes (compact ids in node order; degree-0 nodes in none).
// The adjacency is built in two passes (count, fill) over contiguous cluster ranges of about equal
// work, one per thread, so it is allocated once at its exact size.
template <class View>
CoarseGraph contract(const View& gv, std::vector<uint32_t> label, int threads) {
  const uint32_t n = gv.nodes();
  CoarseGraph cg;
  cg.cluster_of.assign(n, kNoCluster);
  std::vector<uint32_t> id(n, kNoCluster);
  uint32_t C = 0;
  for (uint32_t v = 0; v < n; ++v) {
    if (gv.end(v) == gv.begin(v)) continue;
    uint32_t& c = id[label[v]];
    if (c == kNoCluster) c = C++;
    cg.cluster_of[v] = c;
  }
  std::vector<uint32_t>().swap(label);
  cg.nodes = C;

  // Members by cluster (counting sort, reusing `id` as the member list), weights and work.
  std::vector<uint64_t> start(static_cast<size_t>(C) + 1, 0), work(static_cast<size_t>(C) + 1, 0);
  cg.vwgt.assign(C, 0);
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t c = cg.cluster_of[v];
    if (c == kNoCluster) continue;
    ++start[c + 1];
    work[c + 1] += gv.end(v) - gv.begin(v);
    cg.vwgt[c] += static_cast<int32_t>(gv.weight(v));
  }
  for (uint32_t c = 0; c < C; ++c) start[c + 1] += start[c], work[c + 1] += work[c];
  {
    std::vector<uint64_t> fill(start.begin(), start.end() - 1);
    for (uint32_t v = 0; v < n; ++v)
      if (cg.cluster_of[v] != kNoCluster) id[fill[cg.cluster_of[v]]++] = v;
  }
  const std::vector<uint32_t>& members = id;

  const int T = std::min<int>(worker_threads(threads), static_cast<int>(std::max<uint32_t>(C, 1)));
  std::vector<uint32_t> bounds(T + 1, C);
  bounds[0] = 0;
  for (int t = 1; t < T; ++t)
    bounds[t] = static_cast<uint32_t>(std::lower_bound(work.begin(), work.end(), work[C] * t / T) - work.begin());
  for (int t = 1; t <= T; ++t) bounds[t] = std::max(bounds[t], bounds[t - 1]);
  std::vector<uint64_t>().swap(work);

  // Walks cluster c's fine adjacency, calling emit(d, weight, first_time) per neighbouring cluster d.
  auto walk = [&](uint32_t c, std::vector<uint32_t>& mark, auto&& emit) {
    for (uint64_t i = start[c]; i < start[c + 1]; ++i) {
      prefetch_ahead(gv, members, i, start[C]);  // the members' rows are random accesses
      const uint32_t v = members[i];
      for (uint64_t k = gv.begin(v); k < gv.end(v); ++k) {
        if (k + 16 < gv.end(v)) __builtin_prefetch(&cg.cluster_of[gv.target(k + 16)]);
        const uint32_t d = cg.cluster_of[gv.target(k)];
        if (d == c) continue;
        const bool first = mark[d] != c;
        mark[d] = c;
        emit(d, gv.edge_weight(k), first);
      }
    }
  };
  std::vector<uint64_t> row(static_cast<size_t>(C) + 1, 0);
  parallel_for(T, T, [&](size_t t) {
    std::vector<uint32_t> mark(C, kNoCluster);
    for (uint32_t c = bounds[t]; c < bounds[t + 1]; ++c) {
      uint64_t distinct = 0;
      walk(c, mark, [&](uint32_t, uint32_t, bool first) { distinct += first; });
      row[c + 1] = distinct;
    }
  });
  for (uint32_t c = 0; c < C; ++c) row[c + 1] += row[c];
  if (row[C] > 0x7FFFFFFFULL) throw std::runtime_error("coarsen: coarse graph too large for 32-bit METIS");
  cg.xadj.assign(row.begin(), row.end());
  std::vector<uint64_t>().swap(row);
  cg.adjncy.resize(cg.xadj[C]);
  cg.adjwgt.resize(cg.xadj[C]);
  parallel_for(T, T, [&](size_t t) {
    std::vector<uint32_t> mark(C, kNoCluster), pos(C, 0);
    for (uint32_t c = bounds[t]; c < bounds[t + 1]; ++c) {
      uint32_t write = static_cast<uint32_t>(cg.xadj[c]);
      walk(c, mark, [&](uint32_t d, uint32_t w, bool first) {
        if (first) {
          pos[d] = write;
          cg.adjncy[write] = static_cast<int32_t>(d);
          cg.adjwgt[write++] = static_cast<int32_t>(w);
        } else {
          cg.adjwgt[pos[d]] += static_cast<int32_t>(w);
        }
      });
    }
  });
  return cg;
}

template <class View>
uint64_t refine(const View& gv, std::vector<uint16_t>& part_of, int parts, int rounds, double imbalance,
                uint64_t seed) {
  if (rounds <= 0 || parts < 2) return 0;
  const uint32_t n = gv.nodes();
  std::vector<uint64_t> load(parts, 0);
  uint64_t total = 0;
  for (uint32_t v = 0; v < n; ++v) {
    total += gv.weight(v);
    if (part_of[v] != kNoPart) load[part_of[v]] += gv.weight(v);
  }
  const uint64_t limit = static_cast<uint64_t>((1 + imbalance) * static_cast<double>(total) / parts) + 1;
  const std::vector<uint32_t> order = visiting_order(gv, seed, 73);
  std::vector<uint64_t> conn(parts, 0);
  std::vector<int> touched;
  uint64_t moves = 0;
  for (int round = 0; round < rounds; ++round) {
    uint64_t moved = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      prefetch_ahead(gv, order, i, order.size());
      const uint32_t v = order[i];
      touched.clear();
      for (uint64_t k = gv.begin(v); k < gv.end(v); ++k) {
        if (k + 16 < gv.end(v)) __builtin_prefetch(&part_of[gv.target(k + 16)]);
        const int q = part_of[gv.target(k)];
        if (conn[q] == 0) touched.push_back(q);
        conn[q] += gv.edge_weight(k);
      }
      const int own = part_of[v];
      const uint32_t w = gv.weight(v);
      int best = own;
      for (int q : touched)
        if (q != own && load[q] + w <= limit &&
            (conn[q] > conn[best] || (conn[q] == conn[best] && best != own && q < best)))
          best = q;
      if (best != own && conn[best] > conn[own]) {
        load[own] -= w;
        load[best] += w;
        part_of[v] = static_cast<uint16_t>(best);
        ++moved;
      }
      for (int q : touched) conn[q] = 0;
    }
    moves += moved;
    if (moved == 0) break;
  }
  return moves;
}

}  // namespace

CoarseGraph coarsen(const Graph& g, const CoarsenConfig& cfg) {
  // Coarse edge weights and weighted degrees are sums of fine edges: 32 bits hold them.
  if (g.neighbours.size() > 0xFFFFFFFFULL) throw std::runtime_error("coarsen: more than 2^32 adjacency entries");
  const FineView gv{g};
  return contract(gv, cluster_labels(gv, cfg), cfg.threads);
}

CoarseGraph coarsen(const CoarseGraph& finer, const CoarsenConfig& cfg) {
  const CoarseView gv{finer};
  return contract(gv, cluster_labels(gv, cfg), cfg.threads);
}

std::vector<uint16_t> project_partition(const CoarseGraph& cg, const std::vector<uint16_t>& coarse_part) {
  const size_t n = cg.cluster_of.size();
  std::vector<uint16_t> part_of(n, kNoPart);
  for (size_t v = 0; v < n; ++v)
    if (cg.cluster_of[v] != kNoCluster) part_of[v] = coarse_part[cg.cluster_of[v]];
  return part_of;
}

void fill_unassigned(std::vector<uint16_t>& part_of, int parts, const std::vector<int32_t>* vwgt) {
  auto weight = [&](size_t v) -> uint64_t { return vwgt ? static_cast<uint64_t>((*vwgt)[v]) : 1; };
  std::vector<uint64_t> load(parts, 0);
  for (size_t v = 0; v < part_of.size(); ++v)
    if (part_of[v] != kNoPart) load[part_of[v]] += weight(v);
  // The lightest part first (ties: the lower index).
  using Entry = std::pair<uint64_t, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> lightest;
  for (int q = 0; q < parts; ++q) lightest.push({load[q], q});
  for (size_t v = 0; v < part_of.size(); ++v) {
    if (part_of[v] != kNoPart) continue;
    auto [l, q] = lightest.top();
    lightest.pop();
    part_of[v] = static_cast<uint16_t>(q);
    lightest.push({l + weight(v), q});
  }
}

uint64_t refine_partition(const Graph& g, std::vector<uint16_t>& part_of, int parts, int rounds, double imbalance,
                          uint64_t seed) {
  return refine(FineView{g}, part_of, parts, rounds, imbalance, seed);
}

uint64_t refine_partition(const CoarseGraph& cg, std::vector<uint16_t>& part_of, int parts, int rounds,
                          double imbalance, uint64_t seed) {
  return refine(CoarseView{cg}, part_of, parts, rounds, imbalance, seed);
}

}  // namespace dmlkit::gnn
