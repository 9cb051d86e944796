// RR-set sampling by reverse BFS with epoch stamps, and greedy max coverage with an inverted index.
#include "influence/rr_sets.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::influence {

void RRCollection::clear() {
  offset_.assign(1, 0);
  nodes_.clear();
}

void RRCollection::generate(const Graph& g, const std::vector<NodeId>& roots, size_t count, Rng& rng) {
  if (roots.empty() || count == 0) return;
  const uint32_t n = g.num_nodes();
  if (stamp_.size() < n) {
    stamp_.assign(n, 0);
    queue_.resize(n);
    epoch_ = 0;
  }
  const auto& source = g.in_source();
  const auto& prob = g.in_prob();
  offset_.reserve(offset_.size() + count);
  for (size_t c = 0; c < count; ++c) {
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
    const NodeId root = roots[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(roots.size()) - 1))];
    size_t head = 0, tail = 0;
    queue_[tail++] = root;
    stamp_[root] = epoch_;
    while (head < tail) {
      const NodeId v = queue_[head++];
      for (uint32_t i = g.in_begin(v), end = g.in_end(v); i < end; ++i) {
        const NodeId u = source[i];
        if (stamp_[u] == epoch_) continue;
        if (rng.uniform() >= prob[i]) continue;
        stamp_[u] = epoch_;
        queue_[tail++] = u;
      }
    }
    nodes_.insert(nodes_.end(), queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(tail));
    offset_.push_back(nodes_.size());
  }
}

std::vector<NodeId> RRCollection::max_coverage(uint32_t num_nodes, int k, const std::vector<uint8_t>& candidate,
                                               size_t* covered) const {
  if (!candidate.empty() && candidate.size() != num_nodes) throw Error("max_coverage: candidate mask size mismatch");
  const size_t sets = size();
  // Inverted index: for every node, the RR sets containing it.
  std::vector<uint64_t> start(static_cast<size_t>(num_nodes) + 1, 0);
  for (NodeId v : nodes_) ++start[v + 1];
  for (uint32_t v = 0; v < num_nodes; ++v) start[v + 1] += start[v];
  std::vector<uint32_t> members(nodes_.size());
  {
    std::vector<uint64_t> cursor(start.begin(), start.end() - 1);
    for (size_t s = 0; s < sets; ++s)
      for (uint64_t i = offset_[s]; i < offset_[s + 1]; ++i) members[cursor[nodes_[i]]++] = static_cast<uint32_t>(s);
  }
  std::vector<uint64_t> gain(num_nodes);
  for (uint32_t v = 0; v < num_nodes; ++v) gain[v] = start[v + 1] - start[v];
  std::vector<uint8_t> set_covered(sets, 0), chosen(num_nodes, 0);
  std::vector<NodeId> seeds;
  size_t total = 0;
  for (int round = 0; round < k; ++round) {
    int64_t best = -1;
    uint64_t best_gain = 0;
    for (uint32_t v = 0; v < num_nodes; ++v) {
      if (chosen[v] || (!candidate.empty() && !candidate[v])) continue;
      if (best < 0 || gain[v] > best_gain) {
        best = v;
        best_gain = gain[v];
      }
    }
    if (best < 0) break;
    const auto b = static_cast<NodeId>(best);
    chosen[b] = 1;
    seeds.push_back(b);
    total += best_gain;
    for (uint64_t i = start[b]; i < start[b + 1]; ++i) {
      const uint32_t s = members[i];
      if (set_covered[s]) continue;
      set_covered[s] = 1;
      for (uint64_t j = offset_[s]; j < offset_[s + 1]; ++j) --gain[nodes_[j]];
    }
  }
  if (covered) *covered = total;
  return seeds;
}

}  // namespace dmlkit::influence
