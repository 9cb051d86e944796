// Benchmarks of Optimus for parameter-server jobs (docs/optimus.md): one allocation + placement
// round for 1,000 active jobs on 500 DL2 servers (target: under 20 ms), and a whole DL2-style
// 500-server simulation of 200 jobs under each PS policy (target: under 5 s), plus the ground-truth
// table model's construction (RBF solves) and the PS assignment of every bundled model.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "core/data_dir.h"
#include "cluster/workload/experiment.h"
#include "cluster/policies/optimus/allocation.h"
#include "cluster/policies/optimus/placement.h"
#include "cluster/policies/ps/ps_pool.h"
#include "cluster/speed/ps_assignment.h"
#include "cluster/speed/ps_speed.h"
#include "cluster/workload/ps_workload.h"
#include "core/rng.h"

namespace dmlkit::cluster {
namespace {

void BM_OptimusAllocateAndPlace500Servers(benchmark::State& state) {
  const ClusterSpec cluster = ClusterSpec::parse(default_experiments_dir() + "/clusters/dl2-500.yaml");
  PsWorkloadSpec ws;
  ws.num_jobs = static_cast<int>(state.range(0));
  const Workload w = ps_workload(ws, 11, default_data_dir());
  const TableSpeedModel table(default_data_dir() + "/dl2-measurements/ps_worker_speed.csv");
  std::vector<AllocJob> jobs(w.jobs.size());
  std::vector<const PsJobSpec*> specs(w.jobs.size());
  Rng rng(5);
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const PsJobSpec& s = *w.jobs[i].ps;
    specs[i] = &s;
    jobs[i].worker = s.worker;
    jobs[i].ps = s.ps;
    jobs[i].remaining = s.total_epochs * rng.uniform(0.1, 1.0);
  }
  PsPool pool(cluster);
  double cap[kResources];
  for (int r = 0; r < kResources; ++r) cap[r] = pool.total_cap(r);
  auto speed = [&](int i, int p, int wk) {
    return table.samples_per_s(*specs[i], p, wk, nullptr) / specs[i]->job_type().epoch_size;
  };
  std::vector<int> ps, wk;
  std::vector<std::vector<int>> avoid(w.jobs.size());
  std::vector<Placement> out;
  OptimusPlacer placer;
  int placed = 0;
  for (auto _ : state) {
    greedy_allocate(jobs, cap, speed, AllocOptions{}, ps, wk);
    pool.reset();
    placer.place(pool, specs, ps, wk, avoid, out);
    placed = 0;
    for (size_t i = 0; i < out.size(); ++i) placed += !out[i].empty();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["jobs_placed"] = placed;
}
// 1,000 jobs fill the 2,000 task slots with their first bundles; 300 jobs leave room for the
// greedy marginal-gain walk to hand out the rest one task at a time.
BENCHMARK(BM_OptimusAllocateAndPlace500Servers)->Arg(1000)->Arg(300)->Unit(benchmark::kMillisecond);

void BM_Dl2Large200Jobs500Servers(benchmark::State& state, const char* policy) {
  Experiment e = load_experiment("dl2-500", default_experiments_dir());
  e.seeds = {1};
  e.policies = {policy};
  double jct = 0;
  for (auto _ : state) {
    const auto runs = run_experiment(e, default_data_dir());
    jct = runs[0].metrics.avg_jct_s;
  }
  state.counters["avg_jct_s"] = jct;
}
BENCHMARK_CAPTURE(BM_Dl2Large200Jobs500Servers, optimus, "optimus")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Dl2Large200Jobs500Servers, drf, "drf")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Dl2Large200Jobs500Servers, tetris, "tetris")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Dl2Large200Jobs500Servers, optimus_dl2, "optimus-dl2")->Unit(benchmark::kMillisecond);

void BM_TableSpeedModelBuild(benchmark::State& state) {
  for (auto _ : state) {
    TableSpeedModel m(default_data_dir() + "/dl2-measurements/ps_worker_speed.csv");
    benchmark::DoNotOptimize(&m);
  }
}
BENCHMARK(BM_TableSpeedModelBuild)->Unit(benchmark::kMillisecond);

void BM_PaaEveryBundledModel(benchmark::State& state) {
  std::vector<std::vector<double>> models;
  for (const auto& e : std::filesystem::directory_iterator(default_data_dir() + "/model-graphs"))
    if (e.path().extension() == ".txt") models.push_back(load_model_parameters(e.path().string()));
  for (auto _ : state)
    for (const auto& m : models)
      for (int p = 1; p <= 16; ++p) benchmark::DoNotOptimize(assign_parameters(m, p, PsAssignment::Paa).bytes.data());
}
BENCHMARK(BM_PaaEveryBundledModel)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dmlkit::cluster

BENCHMARK_MAIN();
