// The registry of influence algorithms, in the order `dmlkit influence algorithms` lists them.
// Adding an algorithm: write algorithms/<name>.cpp with the algorithm and its entry (name, summary,
// factory, the knobs it reads), declare the entry in algorithms/factories.h, and add one line to
// the list below.
#include "core/error.h"
#include "influence/algorithm.h"
#include "influence/algorithms/factories.h"

namespace dmlkit::influence {

KnobSpec imm_max_rr_sets_knob() {
  return knob_int("imm.max-rr-sets", 20'000'000, "memory cap on IMM's reverse-reachable sets").at_least(1000);
}

namespace {
AlgorithmRegistry& mutable_algorithm_registry() {
  static AlgorithmRegistry registry(
      {"algorithm", "", "--algorithms: ", kAlgorithmParamFlag},
      {rsb_entry(), random_entry(), static_greedy_entry(), cucb_entry(), epsilon_greedy_entry(), oracle_entry()});
  return registry;
}
}  // namespace

const AlgorithmRegistry& algorithm_registry() { return mutable_algorithm_registry(); }

void register_algorithm(AlgorithmEntry entry) { mutable_algorithm_registry().add(std::move(entry)); }

void check_algorithm_params(const KnobValues& params) { algorithm_registry().check_knobs_any(params); }

std::unique_ptr<Algorithm> make_algorithm(const std::string& name, const KnobValues& params) {
  const AlgorithmRegistry& registry = algorithm_registry();
  const AlgorithmEntry& entry = registry.get(name);
  check_algorithm_params(params);
  return entry.make(Knobs(params, entry.knobs, kAlgorithmParamFlag));
}

const KnobSpec* find_algorithm_knob(const std::string& name) {
  for (const auto& entry : algorithm_registry())
    for (const auto& k : entry.knobs)
      if (k.name == name) return &k;
  return nullptr;
}

}  // namespace dmlkit::influence
