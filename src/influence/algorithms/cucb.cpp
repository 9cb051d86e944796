// CUCB over nodes: the stationary online bandit baseline (the RSB paper compares against an online
// method designed for static networks, probably CUCB-style, spec C.5; W. Chen, Y. Wang, Y. Yuan,
// "Combinatorial Multi-Armed Bandit: General Framework and Applications", ICML 2013).
// Base arms are nodes; a node's observation is its marginal reward as a seed (the same semi-bandit
// feedback RSB gets). Each step: index_i = mean_i + R * sqrt(alpha ln t / T_i), with t the number
// of steps so far, T_i the times node i was a seed, and the oracle of the combinatorial bandit is
// "top k by index" (it treats the spread as additive over seeds). Nodes never tried have an
// infinite index (tried first, in random order).
// Assumptions [A]: rewards are unbounded counts, so R is the largest marginal reward observed so
// far (at least 1); alpha = cucb.alpha (--cucb-alpha 1.5, the CUCB paper's constant); means use the whole
// history with equal weight (stationary by design: no discounting, no window).
#include <algorithm>
#include <cmath>

#include "influence/algorithms/factories.h"

namespace dmlkit::influence {
namespace {

class Cucb : public Algorithm {
 public:
  explicit Cucb(double alpha) : alpha_(alpha) {}
  std::string name() const override { return "cucb"; }
  void reset(uint32_t num_nodes, int) override {
    sum_.assign(num_nodes, 0.0);
    count_.assign(num_nodes, 0);
    steps_ = 0;
    reward_range_ = 1;
  }
  void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) override {
    const double log_t = std::log(static_cast<double>(steps_ + 1));
    keyed_.clear();
    for (NodeId n : *in.present_nodes) {
      double key;
      if (count_[n] == 0)
        key = 1e300 * (1 + rng.uniform());  // untried: first, random order
      else
        key = sum_[n] / count_[n] + reward_range_ * std::sqrt(alpha_ * log_t / count_[n]);
      keyed_.push_back({key, n});
    }
    const auto k = static_cast<std::ptrdiff_t>(in.k);
    std::partial_sort(keyed_.begin(), keyed_.begin() + k, keyed_.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    for (std::ptrdiff_t i = 0; i < k; ++i) seeds.push_back(keyed_[i].second);
  }
  void observe(const StepInput&, const std::vector<NodeId>& seeds, const std::vector<uint32_t>& marginal) override {
    ++steps_;
    for (size_t i = 0; i < seeds.size(); ++i) {
      sum_[seeds[i]] += marginal[i];
      ++count_[seeds[i]];
      reward_range_ = std::max(reward_range_, static_cast<double>(marginal[i]));
    }
  }

 private:
  double alpha_;
  std::vector<double> sum_;
  std::vector<uint32_t> count_;
  std::vector<std::pair<double, NodeId>> keyed_;
  long steps_ = 0;
  double reward_range_ = 1;
};

// Epsilon-greedy over nodes: for each slot, with probability epsilon a uniformly random unchosen
// present node, otherwise the unchosen present node with the best mean marginal reward among those
// tried (random if none was tried yet). Stationary: whole-history means. [A] epsilon = epsilon-greedy.epsilon
// (--epsilon).
class EpsilonGreedy : public Algorithm {
 public:
  explicit EpsilonGreedy(double epsilon) : epsilon_(epsilon) {}
  std::string name() const override { return "epsilon-greedy"; }
  void reset(uint32_t num_nodes, int) override {
    sum_.assign(num_nodes, 0.0);
    count_.assign(num_nodes, 0);
    taken_.assign(num_nodes, 0);
  }
  void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) override {
    const auto& nodes = *in.present_nodes;
    for (int slot = 0; slot < in.k; ++slot) {
      int64_t pick = -1;
      if (rng.uniform() >= epsilon_) {
        double best = -1;
        for (NodeId n : nodes) {
          if (taken_[n] || count_[n] == 0) continue;
          const double mean = sum_[n] / count_[n];
          if (mean > best) {
            best = mean;
            pick = n;
          }
        }
      }
      if (pick < 0) {
        do pick = nodes[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(nodes.size()) - 1))];
        while (taken_[static_cast<NodeId>(pick)]);
      }
      taken_[static_cast<NodeId>(pick)] = 1;
      seeds.push_back(static_cast<NodeId>(pick));
    }
    for (NodeId s : seeds) taken_[s] = 0;
  }
  void observe(const StepInput&, const std::vector<NodeId>& seeds, const std::vector<uint32_t>& marginal) override {
    for (size_t i = 0; i < seeds.size(); ++i) {
      sum_[seeds[i]] += marginal[i];
      ++count_[seeds[i]];
    }
  }

 private:
  double epsilon_;
  std::vector<double> sum_;
  std::vector<uint32_t> count_;
  std::vector<uint8_t> taken_;
};

}  // namespace

AlgorithmEntry cucb_entry() {
  return {
      "cucb",
      "stationary CUCB over nodes: top-k of mean marginal reward + UCB bonus",
      [](const Knobs& k) -> std::unique_ptr<Algorithm> { return std::make_unique<Cucb>(k.get_double("cucb.alpha")); },
      {knob_double("cucb.alpha", 1.5, "UCB bonus R sqrt(alpha ln t / T_i)").at_least(0)}};
}

AlgorithmEntry epsilon_greedy_entry() {
  return {"epsilon-greedy",
          "stationary epsilon-greedy over nodes on mean marginal reward",
          [](const Knobs& k) -> std::unique_ptr<Algorithm> {
            return std::make_unique<EpsilonGreedy>(k.get_double("epsilon-greedy.epsilon"));
          },
          {knob_double("epsilon-greedy.epsilon", 0.1, "exploration probability per slot").range(0, 1)}};
}

}  // namespace dmlkit::influence
