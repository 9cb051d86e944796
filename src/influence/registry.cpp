// The registry of influence algorithms, in the order `dmlkit influence algorithms` lists them.
#include <fmt/format.h>

#include <string>

#include "core/error.h"
#include "influence/algorithm.h"
#include "influence/algorithms/factories.h"

namespace dmlkit::influence {

namespace {
KnobSpec max_rr_sets() {
  return knob_int("--max-rr-sets", 20'000'000, "memory cap on IMM's reverse-reachable sets").at_least(1000);
}
}  // namespace

// Adding an algorithm: write algorithms/<name>.cpp with its factory, declare it in
// algorithms/factories.h, and add one entry here (name, summary, factory, the options it reads).
namespace {
AlgorithmRegistry& mutable_algorithm_registry() {
  static AlgorithmRegistry registry(
      {"algorithm", "", "--algorithms: ", ""},
      {
          {"rsb",
           "RSB (Bao et al., IWQoS 2016): K Exp3-style bandits, one per seed slot, marginal rewards",
           make_rsb,
           {knob_double("--gamma", 0.2, "Exp3 exploration rate").range(0, 1, true, false),
            knob_double("--rsb-c", 0.1, "reward scale (set empirically, as the paper does)").at_least(0, true)}},
          {"random", "k distinct present nodes uniformly at random", make_random},
          {"static-greedy",
           "IMM on the network as first observed, never updated",
           make_static_greedy,
           {knob_double("--static-epsilon", 0.1, "IMM accuracy of the one-off computation").range(0, 1, true, true),
            max_rr_sets()}},
          {"cucb",
           "stationary CUCB over nodes: top-k of mean marginal reward + UCB bonus",
           make_cucb,
           {knob_double("--cucb-alpha", 1.5, "UCB bonus R sqrt(alpha ln t / T_i)").at_least(0)}},
          {"epsilon-greedy",
           "stationary epsilon-greedy over nodes on mean marginal reward",
           make_epsilon_greedy,
           {knob_double("--epsilon", 0.1, "exploration probability per slot").range(0, 1)}},
          {"oracle",
           "IMM on the current network every step (knows topology and probabilities)",
           make_oracle,
           {knob_double("--oracle-epsilon", 0.5, "IMM accuracy per step (runtime budget)").range(0, 1, true, true),
            max_rr_sets()}},
      });
  return registry;
}
}  // namespace

const AlgorithmRegistry& algorithm_registry() { return mutable_algorithm_registry(); }

void register_algorithm(AlgorithmEntry entry) { mutable_algorithm_registry().add(std::move(entry)); }

std::unique_ptr<Algorithm> make_algorithm(const std::string& name, const AlgorithmOptions& options) {
  return algorithm_registry().get(name).make(options);
}

void validate(const AlgorithmOptions& o) {
  // The values as the user gave them, checked against the declared ranges (one validator).
  const KnobValues values = {{"--gamma", fmt::format("{}", o.rsb_gamma)},
                             {"--rsb-c", fmt::format("{}", o.rsb_c)},
                             {"--oracle-epsilon", fmt::format("{}", o.oracle_epsilon)},
                             {"--static-epsilon", fmt::format("{}", o.static_epsilon)},
                             {"--max-rr-sets", std::to_string(o.max_rr_sets)},
                             {"--cucb-alpha", fmt::format("{}", o.cucb_alpha)},
                             {"--epsilon", fmt::format("{}", o.epsilon_greedy)}};
  algorithm_registry().check_knobs_any(values);
}

}  // namespace dmlkit::influence
