// The online influence-maximization experiment of the RSB paper (spec C.4/C.5): a dynamic network
// evolves for T steps; at every step each algorithm picks k seeds, the seeds' cascade is simulated
// on that step's network, and the algorithm is told each seed's marginal reward. All algorithms of
// a run face the same sequence of networks and the same live-edge realization at every step
// (common random numbers), so their differences are not sampling noise of the environment.
//
// Besides the algorithms asked for, each run computes the "best fixed seed set" in hindsight, the
// reference of RSB's weak regret: the k nodes maximizing the total expected spread over all T
// networks, approximated by greedy maximum coverage of reverse-reachable sets pooled over the steps
// (each step contributes RR sets in proportion to its number of present nodes) [A: a
// (1 - 1/e)-approximation of the NP-hard optimum, so weak regret can be slightly negative]. That
// set is then replayed on the same networks and realizations.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "influence/algorithm.h"
#include "influence/dynamics.h"
#include "influence/graph.h"

namespace dmlkit::influence {

struct ExperimentConfig {
  int k = 20;
  int steps = 100;
  int runs = 1;
  uint64_t seed = 1;
  DynamicsConfig dynamics;  // dynamics.steps is set to `steps` by the runner
  std::vector<std::string> algorithms;
  KnobValues algorithm_params;         // algorithm knobs by name ("rsb.gamma" -> "0.3"); the rest at their defaults
  bool best_fixed = true;              // compute the hindsight reference (weak regret)
  size_t hindsight_rr_sets = 200'000;  // [A] RR sets pooled over the whole run
};

// Throws Error naming the option when a value is out of range or an algorithm or knob is unknown
// (everything that does not depend on the network).
void validate(const ExperimentConfig& config);
// The same, and what depends on the network (k against its nodes, static dynamics' probabilities).
void validate(const ExperimentConfig& config, const EdgeList& universe);

struct AlgorithmRuns {
  std::string name;
  std::vector<std::vector<double>> reward;  // [run][step]: users activated at that step
};

struct ExperimentResult {
  std::vector<AlgorithmRuns> algorithms;              // in the order of config.algorithms
  AlgorithmRuns best_fixed;                           // name "best-fixed"; no runs when disabled
  std::vector<std::vector<NodeId>> best_fixed_seeds;  // per run
  std::vector<double> mean_present_nodes;             // per run, averaged over steps
  std::vector<double> mean_present_edges;
};

// Called after every step of every run (for a progress bar).
using ExperimentProgress = std::function<void(int run, int step)>;

ExperimentResult run_experiment(const EdgeList& universe, const ExperimentConfig& config,
                                const ExperimentProgress& progress = {});

}  // namespace dmlkit::influence
