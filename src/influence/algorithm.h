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

// Knobs of every algorithm ([A]/[S] choices, see docs/influence.md).
struct AlgorithmOptions {
  double rsb_gamma = 0.2;           // [S] reimplementation default (spec C.2)
  double rsb_c = 0.1;               // [A] set empirically as the paper does (reimplementation: 1.0); see docs
  double oracle_epsilon = 0.5;      // [A] IMM accuracy of the per-step oracle (runtime budget)
  double static_epsilon = 0.1;      // [A] IMM accuracy of static-greedy's one-off computation
  size_t max_rr_sets = 20'000'000;  // [A] memory cap for IMM
  double cucb_alpha = 1.5;          // [A] UCB bonus R * sqrt(alpha ln t / T_i)
  double epsilon_greedy = 0.1;      // [A] exploration probability per slot
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

// A std::function so that an entry added at run time (a Python class) can carry what it builds from.
using AlgorithmFactory = std::function<std::unique_ptr<Algorithm>(const AlgorithmOptions&)>;
// An entry's knobs are the `influence run` options it reads (named as the flags, e.g. "--gamma"),
// with their defaults and ranges; AlgorithmOptions carries their values.
using AlgorithmEntry = RegistryEntry<AlgorithmFactory>;
using AlgorithmRegistry = Registry<AlgorithmEntry>;

// The algorithms in the order `dmlkit influence algorithms` lists them (registry.cpp).
const AlgorithmRegistry& algorithm_registry();
// Adds an algorithm at run time (a Python class: python/, `influence run --algorithm-file`);
// replaces an earlier run-time entry of that name, Error for a built-in name.
void register_algorithm(AlgorithmEntry entry);
// Throws Error("--algorithms: unknown algorithm 'x' (known: ...)").
std::unique_ptr<Algorithm> make_algorithm(const std::string& name, const AlgorithmOptions& options);
// Throws Error naming the option when a knob is outside its declared range.
void validate(const AlgorithmOptions& options);

}  // namespace dmlkit::influence
