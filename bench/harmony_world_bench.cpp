// Benchmarks of Harmony's world (docs/harmony.md): one placement decision of each baseline for 20
// newly arrived jobs on 50 servers already running 60 jobs (Harmony's target for its own decision,
// issue 14: under 5 ms; the learned `harmony` can be added to kPolicies), and a whole harmony-50
// preset run of one policy with and without co-location interference (the simulator recomputes
// interference factors only when placements change or a job finishes).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "core/data_dir.h"

namespace dmlkit::cluster {
namespace {

const char* const kPolicies[] = {"lb", "tetris-align", "lif-line", "bin-packing", "standalone"};

void BM_PlacementDecision20NewJobs50Servers(benchmark::State& state) {
  const std::string name = kPolicies[state.range(0)];
  state.SetLabel(name);
  const ClusterSpec cluster = ClusterSpec::parse(default_experiments_dir() + "/clusters/harmony-50.yaml");
  PsWorkloadSpec ws;
  ws.catalogue = "harmony";
  ws.num_jobs = 80;
  ws.user_workers_min = 1;
  ws.user_workers_max = 4;
  ws.user_ps_per_worker = 0.5;
  const Workload w = ps_workload(ws, 3, default_data_dir());
  // 60 running jobs, placed by lb, then 20 waiting ones.
  std::vector<JobView> views(w.jobs.size());
  for (size_t i = 0; i < views.size(); ++i) views[i].job = &w.jobs[i];
  std::vector<Placement> out(views.size());
  ClusterView cv;
  cv.cluster = &cluster;
  {
    auto lb = make_policy("lb", {});
    lb->schedule(cv, std::span<const JobView>(views.data(), 60), std::span<Placement>(out.data(), 60));
    for (size_t i = 0; i < 60; ++i) views[i].placement = out[i];
  }
  auto policy = make_policy(name, {});
  int placed = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < views.size(); ++i) out[i] = views[i].placement;
    policy->schedule(cv, views, out);
    placed = 0;
    for (size_t i = 60; i < out.size(); ++i) placed += !out[i].empty();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["new_jobs_placed"] = placed;
}
BENCHMARK(BM_PlacementDecision20NewJobs50Servers)->DenseRange(0, 4)->Unit(benchmark::kMicrosecond);

void BM_Harmony50Run(benchmark::State& state) {
  Experiment e = load_experiment("harmony-50", default_experiments_dir());
  e.interference = state.range(0) == 0 ? "none" : "contention";
  state.SetLabel("lb, seed 1, interference " + e.interference);
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig config = experiment_sim_config(e, default_data_dir());
  const Workload w = ps_workload(e.workload, 1, default_data_dir());
  for (auto _ : state) {
    auto policy = make_policy("lb", {});
    const SimResult r = simulate(cluster, w, "lb", *policy, config);
    benchmark::DoNotOptimize(r.makespan_s);
  }
}
BENCHMARK(BM_Harmony50Run)->DenseRange(0, 1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dmlkit::cluster
BENCHMARK_MAIN();
