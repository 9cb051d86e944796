// The registry of influence algorithms, in the order `dmlkit influence algorithms` lists them.
#include <string>

#include "core/error.h"
#include "influence/algorithm.h"
#include "influence/algorithms/factories.h"

namespace dmlkit::influence {

const std::vector<AlgorithmInfo>& algorithm_registry() {
  static const std::vector<AlgorithmInfo> registry = {
      {"rsb", "RSB (Bao et al., IWQoS 2016): K Exp3-style bandits, one per seed slot, marginal rewards", make_rsb},
      {"random", "k distinct present nodes uniformly at random", make_random},
      {"static-greedy", "IMM on the network as first observed, never updated", make_static_greedy},
      {"cucb", "stationary CUCB over nodes: top-k of mean marginal reward + UCB bonus", make_cucb},
      {"epsilon-greedy", "stationary epsilon-greedy over nodes on mean marginal reward", make_epsilon_greedy},
      {"oracle", "IMM on the current network every step (knows topology and probabilities)", make_oracle},
  };
  return registry;
}

std::unique_ptr<Algorithm> make_algorithm(const std::string& name, const AlgorithmOptions& options) {
  std::string known;
  for (const auto& a : algorithm_registry()) {
    if (a.name == name) return a.make(options);
    known += (known.empty() ? "" : ", ") + a.name;
  }
  throw Error("--algorithms: unknown algorithm '" + name + "' (known: " + known + ")");
}

void validate(const AlgorithmOptions& o) {
  if (!(o.rsb_gamma > 0 && o.rsb_gamma <= 1)) throw Error("--gamma: must be in (0, 1]");
  if (!(o.rsb_c > 0)) throw Error("--rsb-c: must be positive");
  if (!(o.oracle_epsilon > 0 && o.oracle_epsilon < 1)) throw Error("--oracle-epsilon: must be in (0, 1)");
  if (!(o.static_epsilon > 0 && o.static_epsilon < 1)) throw Error("--static-epsilon: must be in (0, 1)");
  if (o.max_rr_sets < 1000) throw Error("--max-rr-sets: must be at least 1000");
  if (!(o.cucb_alpha >= 0)) throw Error("--cucb-alpha: must not be negative");
  if (!(o.epsilon_greedy >= 0 && o.epsilon_greedy <= 1)) throw Error("--epsilon: must be in [0, 1]");
}

}  // namespace dmlkit::influence
