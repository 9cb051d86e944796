// The experiment loop (see experiment.h): lockstep over algorithms, one network and one live-edge
// realization per step, hindsight best fixed set replayed in a second pass.
#include "influence/experiment.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "core/error.h"
#include "influence/cascade.h"
#include "influence/rr_sets.h"

namespace dmlkit::influence {
namespace {

// Stable 64-bit FNV-1a of an algorithm's name: its random stream does not depend on which other
// algorithms run or in which order.
uint64_t name_stream(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  return h;
}

enum Stream : uint64_t { kNetwork = 0, kWorld = 1, kHindsight = 2 };

void check_seeds(const std::string& name, const std::vector<NodeId>& seeds, int k, const std::vector<uint8_t>& present,
                 std::vector<uint8_t>& mark) {
  if (static_cast<int>(seeds.size()) != k)
    throw std::logic_error(name + " returned " + std::to_string(seeds.size()) + " seeds, expected " +
                           std::to_string(k));
  bool ok = true;
  for (NodeId s : seeds) {
    if (s >= present.size() || !present[s] || mark[s]) ok = false;
    if (s < mark.size()) mark[s] = 1;
  }
  for (NodeId s : seeds)
    if (s < mark.size()) mark[s] = 0;
  if (!ok) throw std::logic_error(name + " returned a seed that is absent or repeated");
}

}  // namespace

void validate(const ExperimentConfig& c) {
  if (c.k < 1) throw Error("--k: must be at least 1");
  if (c.steps < 1) throw Error("--steps: must be at least 1");
  if (c.hindsight_rr_sets > 100'000'000) throw Error("--hindsight-rr-sets: at most 100000000");
  if (c.runs < 1) throw Error("--runs: must be at least 1");
  if (c.algorithms.empty()) throw Error("--algorithms: no algorithm given");
  check_algorithm_params(c.algorithm_params);
  for (size_t i = 0; i < c.algorithms.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (c.algorithms[i] == c.algorithms[j]) throw Error("--algorithms: '" + c.algorithms[i] + "' given twice");
    make_algorithm(c.algorithms[i], c.algorithm_params);  // throws for an unknown name
  }
  if (c.best_fixed && c.hindsight_rr_sets < static_cast<size_t>(c.steps))
    throw Error("--hindsight-rr-sets: must be at least --steps");
  DynamicsConfig d = c.dynamics;
  d.steps = c.steps;
  validate(d);
}

void validate(const ExperimentConfig& c, const EdgeList& universe) {
  validate(c);
  if (static_cast<uint32_t>(c.k) > universe.num_nodes)
    throw Error("--k: " + std::to_string(c.k) + " exceeds the " + std::to_string(universe.num_nodes) + " nodes of " +
                universe.name);
  // RSB keeps k weights per node (two doubles each): refuse tables beyond ~8 GB.
  for (const auto& name : c.algorithms)
    if (name == "rsb" && static_cast<double>(c.k) * universe.num_nodes > 5e8)
      throw Error("--k: rsb would need k x nodes = " + std::to_string(static_cast<double>(c.k) * universe.num_nodes) +
                  " weights (at most 5e8)");
  DynamicsConfig d = c.dynamics;
  d.steps = c.steps;
  validate(d, universe);
}

ExperimentResult run_experiment(const EdgeList& universe, const ExperimentConfig& config,
                                const ExperimentProgress& progress) {
  validate(config, universe);
  DynamicsConfig dyn = config.dynamics;
  dyn.steps = config.steps;
  const uint32_t n = universe.num_nodes;
  const size_t num_algorithms = config.algorithms.size();

  ExperimentResult result;
  for (const auto& name : config.algorithms) result.algorithms.push_back({name, {}});
  result.best_fixed.name = "best-fixed";

  CascadeSimulator sim(n);
  std::vector<uint8_t> live, mark(n, 0);
  std::vector<NodeId> seeds;
  std::vector<uint32_t> marginal;
  RRCollection hindsight;

  for (int run = 0; run < config.runs; ++run) {
    const Rng run_rng = Rng(config.seed).split(static_cast<uint64_t>(run));
    std::vector<std::unique_ptr<Algorithm>> algorithms;
    std::vector<Rng> rngs;
    for (const auto& name : config.algorithms) {
      algorithms.push_back(make_algorithm(name, config.algorithm_params));
      algorithms.back()->reset(n, config.k);
      rngs.push_back(run_rng.split(name_stream(name)));
      result.algorithms[algorithms.size() - 1].reward.emplace_back(config.steps, 0.0);
    }
    DynamicNetwork network(universe, dyn, run_rng.split(kNetwork));
    Rng hindsight_rng = run_rng.split(kHindsight);
    hindsight.clear();
    double nodes_sum = 0, edges_sum = 0;
    for (int t = 0; t < config.steps; ++t) {
      network.advance();
      const Graph& g = network.graph();
      Rng world_rng = run_rng.split(kWorld).split(static_cast<uint64_t>(t));
      sample_live_edges(g, world_rng, live);
      const auto& present = network.present_nodes();
      nodes_sum += static_cast<double>(present.size());
      edges_sum += static_cast<double>(g.num_edges());
      const int k = std::min<int>(config.k, static_cast<int>(present.size()));
      for (size_t a = 0; a < num_algorithms; ++a) {
        Algorithm& alg = *algorithms[a];
        StepInput in;
        in.step = t;
        in.k = k;
        in.num_nodes = n;
        in.present_nodes = &present;
        in.node_present = &network.node_present();
        const NetworkAccess access = alg.access();
        if (access == NetworkAccess::EveryStep || (access == NetworkAccess::FirstStep && t == 0)) in.network = &g;
        seeds.clear();
        if (k > 0) alg.select(in, rngs[a], seeds);
        check_seeds(alg.name(), seeds, k, network.node_present(), mark);
        marginal.assign(seeds.size(), 0);
        const uint32_t activated = sim.run_live(g, live, seeds, marginal);
        result.algorithms[a].reward[static_cast<size_t>(run)][static_cast<size_t>(t)] = activated;
        alg.observe(in, seeds, marginal);
      }
      if (config.best_fixed && !present.empty()) {
        const double share = static_cast<double>(present.size()) / n;
        const auto count =
            static_cast<size_t>(std::ceil(static_cast<double>(config.hindsight_rr_sets) / config.steps * share));
        hindsight.generate(g, present, count, hindsight_rng);
      }
      if (progress) progress(run, t);
    }
    result.mean_present_nodes.push_back(nodes_sum / config.steps);
    result.mean_present_edges.push_back(edges_sum / config.steps);
    if (!config.best_fixed) continue;
    // Second pass: the same networks and realizations, seeded with the hindsight set.
    const std::vector<NodeId> fixed = hindsight.max_coverage(n, config.k, {});
    result.best_fixed_seeds.push_back(fixed);
    std::vector<double>& reward = result.best_fixed.reward.emplace_back(config.steps, 0.0);
    DynamicNetwork replay(universe, dyn, run_rng.split(kNetwork));
    for (int t = 0; t < config.steps; ++t) {
      replay.advance();
      const Graph& g = replay.graph();
      Rng world_rng = run_rng.split(kWorld).split(static_cast<uint64_t>(t));
      sample_live_edges(g, world_rng, live);
      seeds.clear();
      for (NodeId v : fixed)
        if (replay.node_present()[v]) seeds.push_back(v);
      reward[static_cast<size_t>(t)] = sim.run_live(g, live, seeds);
    }
  }
  return result;
}

}  // namespace dmlkit::influence
