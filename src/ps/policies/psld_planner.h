// PSLD's exploitation step (PSLD as reconstructed, spec comm-and-ps.md 3.1 "Exploit"): given the
// blocks, their current servers, the servers that may hold load and a throughput per server,
// greedily move single blocks off the server with the largest predicted time load/mu onto the
// server where the pair's larger predicted time is smallest, while that strictly lowers the
// pair's maximum (a local search towards min max_j load_j / mu_j; block granularity as in the
// spec's "LPT or best-fit over blocks" [A]). Servers not allowed lose all their blocks first
// (draining: scale-in). Deterministic: ties go to the lower block and server index.
#pragma once
#include <vector>

#include "ps/placement.h"

namespace dmlkit::ps {

struct PlanResult {
  std::vector<int> block_server;
  double old_max_s = 0;  // predicted slowest server time before / after
  double new_max_s = 0;
  double moved_bytes = 0;
};

// allowed[j]: server j may hold blocks; mu[j] > 0 for every allowed server.
PlanResult plan_min_max(const std::vector<Block>& blocks, const std::vector<int>& block_server,
                        const std::vector<char>& allowed, const std::vector<double>& mu_Bps, int max_moves);

// Predicted time per server: load / mu (0 for a server with no load).
std::vector<double> predicted_times(const std::vector<Block>& blocks, const std::vector<int>& block_server,
                                    const std::vector<double>& mu_Bps);

// Moves aggregated per (from, to) pair, in (from, to) order.
std::vector<struct Move> moves_between(const std::vector<Block>& blocks, const std::vector<int>& from,
                                       const std::vector<int>& to);

}  // namespace dmlkit::ps
