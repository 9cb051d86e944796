// Benchmarks of gnn/ (issue 17 targets): one simulated epoch of NetHEPT (fanouts 25,10, batch
// 1024, 4 partitions, 8 machines) under 5 s (sampling, fork of the simulation process included);
// the exploratory placement search with 100 candidates under 1 minute; a 10^7-node R-MAT graph
// generated and METIS-partitioned (multilevel pre-step) under 2 minutes and 4 GB (peak RSS: run
// each case alone under /usr/bin/time -v; see docs/performance.md).
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

// R-MAT graph of 10^range(0) nodes, edge factor 8, generated and partitioned into 8 parts; the
// metis cases pass the knobs: "pre" forces the multilevel pre-step (its other knobs at their
// defaults, as at 10^7 nodes), "plain" forbids it.
void BM_Rmat_GeneratePartition(benchmark::State& state, const char* method, const char* mode) {
  for (auto _ : state) {
    uint64_t nodes = 1;
    for (int k = 0; k < state.range(0); ++k) nodes *= 10;
    Graph g = generate_rmat(parse_rmat("rmat:nodes=" + std::to_string(nodes) + ",edge_factor=8"), 1);
    KnobValues knobs;
    if (std::string(mode) == "pre") knobs["metis.coarsen_above_edges"] = "0";
    if (std::string(mode) == "plain") knobs["metis.coarsen_above_edges"] = "100000000000";
    const auto p = partition_graph(g, 8, method, knobs, 1);
    state.counters["edges"] = static_cast<double>(g.undirected_edges());
    state.counters["cut_edges"] = static_cast<double>(p.cut_edges);
    state.counters["cut_fraction"] = static_cast<double>(p.cut_edges) / static_cast<double>(g.undirected_edges());
    state.counters["imbalance"] = p.imbalance();
    state.counters["coarse_nodes"] = static_cast<double>(p.coarse_nodes);
    state.counters["coarse_edges"] = static_cast<double>(p.coarse_edges);
    state.counters["levels"] = p.coarsen_levels;
    state.counters["coarsen_s"] = p.coarsen_s;
    state.counters["metis_s"] = p.metis_s;
    state.counters["refine_s"] = p.refine_s;
  }
}
// 10^7 nodes: metis takes the pre-step by default (7.9e7 edges > metis.coarsen_above_edges).
BENCHMARK_CAPTURE(BM_Rmat_GeneratePartition, metis, "metis", "default")->Arg(7)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_Rmat_GeneratePartition, hash, "hash", "default")->Arg(7)->Iterations(1)->Unit(benchmark::kSecond);
// 10^6 nodes: the pre-step against plain METIS (cut quality, time).
BENCHMARK_CAPTURE(BM_Rmat_GeneratePartition, metis_plain, "metis", "plain")->Arg(6)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_Rmat_GeneratePartition, metis_pre, "metis", "pre")->Arg(6)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_Rmat_GeneratePartition, hash_1e6, "hash", "default")->Arg(6)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
