// The analytic oracle PACE's fusion search evaluates plans with (reconstruction, spec section
// 2.1): one iteration in steady state on an alpha-beta network with preemptive priority.
//   - backward starts at t=0; tensor i's gradient is ready when the backward pass has passed its
//     layer; a fused group is ready when its last member is;
//   - the network is one resource; each group is sent in partitions of `partition_bytes`, each
//     costing alpha + beta*bytes; at every partition boundary the most urgent ready group (lowest
//     forward rank among its members) is sent next;
//   - the next forward pass runs layer by layer, a layer waiting until its tensor is synchronised.
// Returns the time from the start of backward to the end of the next forward, which differs from
// the steady-state iteration time by a constant (the part of forward before the first wait is
// included), so plans can be compared with it.
#pragma once
#include <vector>

#include "comm/workload.h"

namespace dmlkit::comm {

struct OracleNetwork {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  double partition_bytes = 0;  // 0 = whole groups (no preemption inside a group)
};

class PaceOracle {
 public:
  PaceOracle(const TrainingWorkload& w, OracleNetwork net);
  // groups: each a list of tensor ids; every tensor exactly once.
  double evaluate(const std::vector<std::vector<int>>& groups) const;
  // Tensors in the order their gradients become ready (backward order).
  const std::vector<int>& ready_order() const { return ready_order_; }

 private:
  const TrainingWorkload& w_;
  OracleNetwork net_;
  std::vector<double> ready_s_;  // per tensor
  std::vector<int> ready_order_;
  double backward_s_ = 0;
  mutable std::vector<double> sync_s_;
};

// PACE's dynamic programming over prefixes of the ready order (spec 2.1, a heuristic DP because
// iteration time is not additive): best[j] = min over k < j (j - k <= max_group) of
// Oracle(best[k] + group(k..j-1) + the rest unfused). Returns the groups of best[n].
std::vector<std::vector<int>> pace_fusion_plan(const PaceOracle& oracle, int max_group = 64);

}  // namespace dmlkit::comm
