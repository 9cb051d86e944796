// Greedy min-max re-assignment (see psld_planner.h).
#include "ps/policies/psld_planner.h"

#include <algorithm>
#include <map>

#include "ps/policy.h"

namespace dmlkit::ps {

std::vector<double> predicted_times(const std::vector<Block>& blocks, const std::vector<int>& block_server,
                                    const std::vector<double>& mu) {
  std::vector<double> load(mu.size(), 0.0), t(mu.size(), 0.0);
  for (size_t i = 0; i < blocks.size(); ++i) load[block_server[i]] += blocks[i].bytes;
  for (size_t j = 0; j < mu.size(); ++j) t[j] = load[j] > 0 ? load[j] / std::max(mu[j], 1e-9) : 0.0;
  return t;
}

PlanResult plan_min_max(const std::vector<Block>& blocks, const std::vector<int>& block_server,
                        const std::vector<char>& allowed, const std::vector<double>& mu, int max_moves) {
  const int n = static_cast<int>(mu.size());
  PlanResult r;
  r.block_server = block_server;
  auto& bs = r.block_server;
  std::vector<double> load(n, 0.0);
  for (size_t i = 0; i < blocks.size(); ++i) load[bs[i]] += blocks[i].bytes;
  auto time = [&](int j, double l) { return l > 0 ? l / std::max(mu[j], 1e-9) : 0.0; };
  r.old_max_s = 0;
  for (int j = 0; j < n; ++j) r.old_max_s = std::max(r.old_max_s, time(j, load[j]));
  // Drain servers that may not hold load: each block to the allowed server where it ends soonest.
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (allowed[bs[i]]) continue;
    int best = -1;
    for (int j = 0; j < n; ++j)
      if (allowed[j] && (best < 0 || time(j, load[j] + blocks[i].bytes) < time(best, load[best] + blocks[i].bytes)))
        best = j;
    if (best < 0) break;  // nothing allowed: keep the map
    load[bs[i]] -= blocks[i].bytes;
    load[best] += blocks[i].bytes;
    bs[i] = best;
  }
  for (int step = 0; step < max_moves; ++step) {
    int s = -1;
    for (int j = 0; j < n; ++j)
      if (load[j] > 0 && (s < 0 || time(j, load[j]) > time(s, load[s]))) s = j;
    if (s < 0) break;
    const double ts = time(s, load[s]);
    int best_block = -1, best_to = -1;
    double best_pair = ts;
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (bs[i] != s) continue;
      const double b = blocks[i].bytes;
      for (int t = 0; t < n; ++t) {
        if (t == s || !allowed[t]) continue;
        const double pair = std::max(time(s, load[s] - b), time(t, load[t] + b));
        if (pair < best_pair - 1e-12) {
          best_pair = pair;
          best_block = static_cast<int>(i);
          best_to = t;
        }
      }
    }
    if (best_block < 0) break;
    load[s] -= blocks[best_block].bytes;
    load[best_to] += blocks[best_block].bytes;
    bs[best_block] = best_to;
  }
  r.new_max_s = 0;
  for (int j = 0; j < n; ++j) r.new_max_s = std::max(r.new_max_s, time(j, load[j]));
  r.moved_bytes = moved_bytes(blocks, block_server, bs);
  return r;
}

std::vector<Move> moves_between(const std::vector<Block>& blocks, const std::vector<int>& from,
                                const std::vector<int>& to) {
  std::map<std::pair<int, int>, double> m;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (from[i] != to[i]) m[{from[i], to[i]}] += blocks[i].bytes;
  std::vector<Move> out;
  for (const auto& [k, v] : m) out.push_back({k.first, k.second, v});
  return out;
}

}  // namespace dmlkit::ps
