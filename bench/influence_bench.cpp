// Benchmarks of the influence module on NetHEPT (15,233 nodes, 58,891 edges): one RSB step with
// K = 50 including the cascade simulation of its seeds (target < 10 ms), the IMM oracle with
// epsilon 0.1 and K = 50 (target < 5 s), one cascade, and one step of the dynamic network.
#include <benchmark/benchmark.h>

#include "influence/algorithms/rsb.h"
#include "influence/cascade.h"
#include "influence/dynamics.h"
#include "influence/graph_source.h"
#include "influence/imm.h"

namespace dmlkit::influence {
namespace {

const EdgeList& nethept() {
  static const EdgeList g = load_graph("NetHEPT", GraphFormat::Auto, default_graph_data_dir(), 1);
  return g;
}

DynamicsConfig dynamics(ProbabilityModel model) {
  DynamicsConfig c;
  c.model = model;
  return c;
}

// state.range(0): 0 = weighted-cascade probabilities of the file (static), 1 = trivalency.
ProbabilityModel model_of(const benchmark::State& state) {
  return state.range(0) == 0 ? ProbabilityModel::Static : ProbabilityModel::Trivalency;
}

void BM_RsbStepNetHEPT(benchmark::State& state) {
  const int k = 50;
  DynamicNetwork net(nethept(), dynamics(model_of(state)), Rng(1));
  net.advance();
  Rsb rsb(0.2, 0.1);
  rsb.reset(net.num_nodes(), k);
  CascadeSimulator sim(net.num_nodes());
  StepInput in;
  in.k = k;
  in.num_nodes = net.num_nodes();
  in.present_nodes = &net.present_nodes();
  in.node_present = &net.node_present();
  Rng rng(2);
  std::vector<NodeId> seeds;
  std::vector<uint32_t> marginal(k);
  uint64_t activated = 0;
  for (auto _ : state) {
    seeds.clear();
    rsb.select(in, rng, seeds);
    activated += sim.run(net.graph(), seeds, rng, marginal);
    rsb.observe(in, seeds, marginal);
  }
  state.counters["activated_per_step"] = static_cast<double>(activated) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RsbStepNetHEPT)->ArgName("trivalency")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_ImmOracleNetHEPT(benchmark::State& state) {
  DynamicNetwork net(nethept(), dynamics(model_of(state)), Rng(1));
  net.advance();
  Rng rng(3);
  ImmResult r;
  for (auto _ : state) {
    r = imm(net.graph(), net.present_nodes(), 50, ImmOptions{.epsilon = 0.1}, rng);
    benchmark::DoNotOptimize(r.seeds.data());
  }
  state.counters["rr_sets"] = static_cast<double>(r.rr_sets);
  state.counters["estimated_spread"] = r.estimated_spread;
}
BENCHMARK(BM_ImmOracleNetHEPT)->ArgName("trivalency")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_CascadeNetHEPT(benchmark::State& state) {
  DynamicNetwork net(nethept(), dynamics(ProbabilityModel::Static), Rng(1));
  net.advance();
  CascadeSimulator sim(net.num_nodes());
  Rng rng(4);
  std::vector<NodeId> seeds;
  for (NodeId v = 0; v < 50; ++v) seeds.push_back(v * 300);
  for (auto _ : state) benchmark::DoNotOptimize(sim.run(net.graph(), seeds, rng));
}
BENCHMARK(BM_CascadeNetHEPT)->Unit(benchmark::kMicrosecond);

// One environment step: topology churn, probability redraw, CSR rebuild, live-edge realization.
void BM_DynamicNetworkStepNetHEPT(benchmark::State& state) {
  DynamicsConfig c = dynamics(ProbabilityModel::WeightedCascade);
  c.edge_churn = 0.05;
  c.edge_presence = 0.9;
  DynamicNetwork net(nethept(), c, Rng(1));
  Rng rng(5);
  std::vector<uint8_t> live;
  for (auto _ : state) {
    net.advance();
    sample_live_edges(net.graph(), rng, live);
    benchmark::DoNotOptimize(live.data());
  }
}
BENCHMARK(BM_DynamicNetworkStepNetHEPT)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dmlkit::influence

BENCHMARK_MAIN();
