// Independent-cascade simulation with epoch-stamped visited marks (see cascade.h).
#include "influence/cascade.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::influence {

void sample_live_edges(const Graph& g, Rng& rng, std::vector<uint8_t>& live) {
  const auto& prob = g.out_prob();
  live.resize(prob.size());
  for (size_t i = 0; i < prob.size(); ++i) live[i] = rng.uniform() < prob[i] ? 1 : 0;
}

CascadeSimulator::CascadeSimulator(uint32_t max_nodes) { ensure(max_nodes); }

void CascadeSimulator::ensure(uint32_t n) {
  if (stamp_.size() < n) {
    stamp_.assign(n, 0);
    frontier_.resize(n);
    epoch_ = 0;
  }
}

template <typename EdgeLive>
uint32_t CascadeSimulator::cascade(const Graph& g, std::span<const NodeId> seeds, std::span<uint32_t> marginal,
                                   EdgeLive&& live) {
  ensure(g.num_nodes());
  if (++epoch_ == 0) {  // wrapped: clear the stamps once every 2^32 cascades
    std::fill(stamp_.begin(), stamp_.end(), 0);
    epoch_ = 1;
  }
  const uint32_t epoch = epoch_;
  const auto& target = g.out_target();
  uint32_t total = 0;
  for (size_t k = 0; k < seeds.size(); ++k) {
    const NodeId s = seeds[k];
    uint32_t added = 0;
    if (s < g.num_nodes() && stamp_[s] != epoch) {
      stamp_[s] = epoch;
      size_t head = 0, tail = 0;
      frontier_[tail++] = s;
      while (head < tail) {
        const NodeId u = frontier_[head++];
        for (uint32_t i = g.out_begin(u), end = g.out_end(u); i < end; ++i) {
          const NodeId v = target[i];
          if (stamp_[v] == epoch) continue;
          if (!live(i)) continue;
          stamp_[v] = epoch;
          frontier_[tail++] = v;
        }
      }
      added = static_cast<uint32_t>(tail);
    }
    if (!marginal.empty()) marginal[k] = added;
    total += added;
  }
  return total;
}

uint32_t CascadeSimulator::run(const Graph& g, std::span<const NodeId> seeds, Rng& rng, std::span<uint32_t> marginal) {
  if (!marginal.empty() && marginal.size() != seeds.size()) throw Error("cascade: marginal size differs from seeds");
  const auto& prob = g.out_prob();
  return cascade(g, seeds, marginal, [&](uint32_t i) { return rng.uniform() < prob[i]; });
}

uint32_t CascadeSimulator::run_live(const Graph& g, const std::vector<uint8_t>& live, std::span<const NodeId> seeds,
                                    std::span<uint32_t> marginal) {
  if (!marginal.empty() && marginal.size() != seeds.size()) throw Error("cascade: marginal size differs from seeds");
  if (live.size() != g.num_edges()) throw Error("cascade: live-edge realization does not match the graph");
  return cascade(g, seeds, marginal, [&](uint32_t i) { return live[i] != 0; });
}

double CascadeSimulator::mean_spread(const Graph& g, std::span<const NodeId> seeds, int simulations, Rng& rng) {
  if (simulations <= 0) return 0;
  double sum = 0;
  for (int i = 0; i < simulations; ++i) sum += run(g, seeds, rng);
  return sum / simulations;
}

double exact_spread(const Graph& g, std::span<const NodeId> seeds) {
  const size_t m = g.num_edges();
  if (m > 24) throw Error("exact_spread: at most 24 edges (2^m realizations)");
  std::vector<uint8_t> live(m);
  CascadeSimulator sim(g.num_nodes());
  const auto& prob = g.out_prob();
  double expected = 0;
  for (uint64_t mask = 0; mask < (1ULL << m); ++mask) {
    double p = 1;
    for (size_t i = 0; i < m; ++i) {
      live[i] = (mask >> i) & 1U;
      p *= live[i] ? prob[i] : 1.0 - prob[i];
    }
    if (p == 0) continue;
    expected += p * sim.run_live(g, live, seeds);
  }
  return expected;
}

}  // namespace dmlkit::influence
