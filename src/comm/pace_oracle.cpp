// Analytic preemptive-priority oracle and PACE's fusion DP (see pace_oracle.h).
#include "comm/pace_oracle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace dmlkit::comm {

PaceOracle::PaceOracle(const TrainingWorkload& w, OracleNetwork net) : w_(w), net_(net) {
  ready_s_.assign(w.tensors.size(), 0);
  double t = 0;
  for (int l = static_cast<int>(w.layers.size()) - 1; l >= 0; --l) {
    t += w.layers[l].bwd_s;
    for (int k = w.layers[l].tensor_count - 1; k >= 0; --k) {
      ready_s_[w.layers[l].tensor + k] = t;
      ready_order_.push_back(w.layers[l].tensor + k);
    }
  }
  backward_s_ = t;
  sync_s_.assign(w.tensors.size(), 0);
}

double PaceOracle::evaluate(const std::vector<std::vector<int>>& groups) const {
  struct G {
    double ready, bytes;
    int prio;
    size_t idx;
  };
  std::vector<G> gs;
  gs.reserve(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    G g{0, 0, std::numeric_limits<int>::max(), i};
    for (int t : groups[i]) {
      g.ready = std::max(g.ready, ready_s_[t]);
      g.bytes += w_.tensors[t].bytes;
      g.prio = std::min(g.prio, w_.tensors[t].forward_rank);
    }
    gs.push_back(g);
  }
  std::sort(gs.begin(), gs.end(),
            [](const G& a, const G& b) { return a.ready < b.ready || (a.ready == b.ready && a.prio < b.prio); });
  // (prio, group index in gs); remaining bytes tracked per group.
  using Entry = std::pair<int, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  std::vector<double> left(gs.size());
  for (size_t i = 0; i < gs.size(); ++i) left[i] = gs[i].bytes;
  size_t next = 0;
  double now = 0;
  const double part = net_.partition_bytes > 0 ? net_.partition_bytes : std::numeric_limits<double>::infinity();
  while (next < gs.size() || !heap.empty()) {
    if (heap.empty()) now = std::max(now, gs[next].ready);
    while (next < gs.size() && gs[next].ready <= now) {
      heap.push({gs[next].prio, next});
      ++next;
    }
    auto [prio, gi] = heap.top();
    double send = std::min(part, left[gi]);
    if (gs[gi].bytes <= 0) send = 0;
    now += net_.alpha_s + net_.beta_s_per_byte * send;
    left[gi] -= send;
    if (left[gi] <= 1e-9) {
      heap.pop();
      for (int t : groups[gs[gi].idx]) sync_s_[t] = now;
    }
  }
  double t = backward_s_;
  for (const auto& layer : w_.layers) {
    for (int k = 0; k < layer.tensor_count; ++k) t = std::max(t, sync_s_[layer.tensor + k]);
    t += layer.fwd_s;
  }
  return t;
}

std::vector<std::vector<int>> pace_fusion_plan(const PaceOracle& oracle, int max_group) {
  const auto& order = oracle.ready_order();
  const int n = static_cast<int>(order.size());
  if (n == 0) return {};
  std::vector<double> best(n + 1, std::numeric_limits<double>::infinity());
  std::vector<int> cut(n + 1, 0);  // best[j]'s last group starts at cut[j]
  best[0] = 0;
  std::vector<std::vector<int>> plan;
  auto build_prefix = [&](int k, std::vector<std::vector<int>>& out) {
    std::vector<std::pair<int, int>> spans;
    for (int j = k; j > 0; j = cut[j]) spans.push_back({cut[j], j});
    std::reverse(spans.begin(), spans.end());
    for (auto [a, b] : spans) out.emplace_back(order.begin() + a, order.begin() + b);
  };
  for (int j = 1; j <= n; ++j) {
    for (int k = std::max(0, j - max_group); k < j; ++k) {
      plan.clear();
      build_prefix(k, plan);
      plan.emplace_back(order.begin() + k, order.begin() + j);
      for (int r = j; r < n; ++r) plan.push_back({order[r]});
      const double cost = oracle.evaluate(plan);
      if (cost < best[j] - 1e-12) {
        best[j] = cost;
        cut[j] = k;
      }
    }
  }
  plan.clear();
  build_prefix(n, plan);
  return plan;
}

}  // namespace dmlkit::comm
