// The interface every online influence-maximization algorithm implements, and the registry of
// algorithms by name. At each step an algorithm picks k seeds among the nodes present; then it is
// told each seed's marginal reward (semi-bandit feedback: the number of users that seed activated
// that earlier seeds of the same step did not). What an algorithm may know about the network is
// declared by access() and enforced by the experiment runner: bandits see only the node set and
// their feedback; static-greedy sees the network of the first step; the oracle sees every step's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.h"
#include "core/rng.h"
#include "influence/graph.h"

namespace dmlkit::influence {

enum class NetworkAccess { None, FirstStep, EveryStep };

struct StepInput {
  int step = 0;
  int k = 0;               // seeds to return (already clamped to the number of present nodes)
  uint32_t num_nodes = 0;  // size of the node-id space (present or not)
  const std::vector<NodeId>* present_nodes = nullptr;  // ascending ids
  const std::vector<uint8_t>* node_present = nullptr;  // num_nodes flags
  const Graph* network = nullptr;                      // null unless access() allows it at this step
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  virtual NetworkAccess access() const { return NetworkAccess::None; }
  // Starts a new run over a node-id space of num_nodes with seed budget k.
  virtual void reset(uint32_t num_nodes, int k) = 0;
  // Appends exactly in.k distinct present nodes to `seeds` (which arrives empty).
  virtual void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) = 0;
  // The outcome of the seeds chosen this step: marginal[i] belongs to seeds[i].
  virtual void observe(const StepInput& in, const std::vector<NodeId>& seeds, const std::vector<uint32_t>& marginal) {}
};

// An entry's factory reads the knobs its entry declares (core/knobs.h: "rsb.gamma", ...) through
// Knobs, which falls back to the declared defaults. A std::function so that an entry added at run
// time (a Python class) can carry what it builds from.
using AlgorithmFactory = std::function<std::unique_ptr<Algorithm>(const Knobs&)>;
using AlgorithmEntry = RegistryEntry<AlgorithmFactory>;
using AlgorithmRegistry = Registry<AlgorithmEntry>;

// The option that sets algorithm knobs (`influence run --algorithm-param rsb.gamma=0.3`).
inline constexpr const char* kAlgorithmParamFlag = "--algorithm-param";

// The algorithms in the order `dmlkit influence algorithms` lists them (registry.cpp).
const AlgorithmRegistry& algorithm_registry();
// Adds an algorithm at run time (a Python class: python/, `influence run --algorithm-file`);
// replaces an earlier run-time entry of that name, Error for a built-in name.
void register_algorithm(AlgorithmEntry entry);
// Throws Error naming --algorithm-param and the knob when a key no registered algorithm declares
// is given, or a value outside its knob's type or range.
void check_algorithm_params(const KnobValues& params);
// The algorithm `name` reading its knobs from `params` (defaults for the ones not given).
// Throws Error("--algorithms: unknown algorithm 'x' (known: ...)") and as check_algorithm_params.
std::unique_ptr<Algorithm> make_algorithm(const std::string& name, const KnobValues& params = {});
// The declaration of the knob `name` among the registered algorithms, null when none declares it.
const KnobSpec* find_algorithm_knob(const std::string& name);

}  // namespace dmlkit::influence
