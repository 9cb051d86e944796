// Benchmarks of gnn/ (issue 17 targets): one simulated epoch of NetHEPT (fanouts 25,10, batch
// 1024, 4 partitions, 8 machines) under 5 s (sampling, fork of the simulation process included);
// the exploratory placement search with 100 candidates under 1 minute; a 10^7-node R-MAT graph
// generated and METIS-partitioned under 2 minutes and 4 GB (peak RSS: run it alone under
// /usr/bin/time -v; see docs/performance.md).
#include <benchmark/benchmark.h>

#include "core/data_dir.h"
#include "gnn/compare.h"

using namespace dmlkit;
using namespace dmlkit::gnn;

namespace {

CompareOptions nethept(const std::vector<std::string>& placements, const std::vector<std::string>& schedulers) {
  CompareOptions o;
  o.graph = "NetHEPT";
  o.partitions = 4;
  o.cluster.machines = 8;
  o.cluster.devices = "v100:4,p100:2,k80:2";
  o.data_dir = default_data_dir();
  o.cluster.gavel_path = o.data_dir + "/gavel-throughputs/simulation_throughputs.json";
  o.placements = placements;
  o.schedulers = schedulers;
  o.threads = 1;
  return o;
}

void BM_NetHEPT_Epoch(benchmark::State& state, const char* sched) {
  for (auto _ : state) {
    const auto c = run_compare(nethept({"colocate"}, {sched}));
    benchmark::DoNotOptimize(c.runs[0].epoch_s);
  }
}
BENCHMARK_CAPTURE(BM_NetHEPT_Epoch, fifo_fair, "fifo-fair")->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NetHEPT_Epoch, online, "online")->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_Explore100(benchmark::State& state) {
  for (auto _ : state) {
    auto o = nethept({"explore"}, {"online"});
    o.placement_params["explore.candidates"] = "100";
    const auto c = run_compare(o);
    benchmark::DoNotOptimize(c.runs[0].epoch_s);
  }
}
BENCHMARK(BM_Explore100)->Iterations(1)->Unit(benchmark::kSecond);

void BM_Rmat1e7_GeneratePartition(benchmark::State& state, Partitioner method) {
  for (auto _ : state) {
    Graph g = generate_rmat(parse_rmat("rmat:nodes=10000000,edge_factor=" + std::to_string(state.range(0))), 1);
    const auto p = partition_graph(g, 8, method, 1);
    state.counters["edges"] = static_cast<double>(g.undirected_edges());
    state.counters["cut_edges"] = static_cast<double>(p.cut_edges);
  }
}
BENCHMARK_CAPTURE(BM_Rmat1e7_GeneratePartition, metis, Partitioner::metis)->Arg(8)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_Rmat1e7_GeneratePartition, hash, Partitioner::hash)->Arg(8)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
