// RSB: Y. Bao, X. Wang, Z. Wang, C. Wu, F. C. M. Lau, "Online Influence Maximization in
// Non-Stationary Social Networks", IWQoS 2016 (arXiv 1604.07638); algorithm as restated in spec
// C.2 (Kyrylchuk's thesis, Algorithm 9).
//
// K independent Exp3-style bandits, one per seed slot, each with a weight v_k(n) per node (1 at
// start). At each step, for slot k = 1..K:
//   w_k(n) = (1 - gamma) v_k(n) / sum_n' v_k(n') + gamma / N          (mixing)
//   q_k(n) = w_k(n) / sum_{n' not in S} w_k(n')  for n not in S        (unchosen nodes only)
//   draw sigma ~ q_k, S <- S + {sigma}
//   r_k = marginal activations of sigma (not reached by earlier seeds of this step)
//   r^_k(sigma) = r_k / q_k(sigma), 0 for the other nodes              (importance weighting)
//   v_k(n) <- v_k(n) exp(gamma r^_k(n) / (N C))                          (multiplicative update)
// Assumptions [A], each a documented choice:
//   - N is the number of nodes present at the step (the node set may change); weights are kept
//     for absent nodes and reused if they come back; a node never seen before has weight 1.
//   - The sums over n' run over the present nodes.
//   - Weights are held as logarithms (v = exp(log v)), so large rewards cannot overflow; the draw
//     uses exp(log v - shift) with a per-slot shift, which leaves every ratio unchanged.
//   - The draw really uses q_k (the mixed, restricted distribution), not the raw weights (the
//     reimplementation's quirk noted in spec C.6 is not copied).
#pragma once
#include <vector>

#include "influence/algorithm.h"

namespace dmlkit::influence {

class Rsb : public Algorithm {
 public:
  Rsb(double gamma, double c);
  std::string name() const override { return "rsb"; }
  void reset(uint32_t num_nodes, int k) override;
  void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) override;
  void observe(const StepInput& in, const std::vector<NodeId>& seeds, const std::vector<uint32_t>& marginal) override;

  // For tests: log v_k(n), and q_k(n) given the nodes already chosen this step and the present set.
  double log_weight(int slot, NodeId n) const { return log_weight_[slot * num_nodes_ + n]; }
  double probability(int slot, NodeId n, const std::vector<NodeId>& chosen, const std::vector<NodeId>& present) const;
  // q_k(sigma) of the seeds drawn by the last select().
  const std::vector<double>& last_probabilities() const { return draw_probability_; }

 private:
  void rescale(int slot);

  double gamma_;
  double c_;
  uint32_t num_nodes_ = 0;
  int k_ = 0;
  std::vector<double> log_weight_;  // k_ x num_nodes_
  std::vector<double> scaled_;      // exp(log_weight - shift[slot])
  std::vector<double> shift_;       // per slot
  std::vector<uint8_t> chosen_;     // num_nodes_ flags, cleared after every select
  std::vector<double> draw_probability_;
  uint32_t present_count_ = 0;
};

}  // namespace dmlkit::influence
