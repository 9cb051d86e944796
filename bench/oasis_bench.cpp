// Benchmarks of the OASiS model (docs/oasis.md, docs/performance.md): one admission decision (dual
// subroutine + price update) for a job on the 50-server oasis-sim cluster over 300 slots, half
// full (target: under 10 ms); a whole oasis-sim run of each method at load 1 (target: under 5 s);
// the LP upper bound for 100 jobs (target: under 1 minute).
#include <benchmark/benchmark.h>

#include "cluster/oasis/dual_subroutine.h"
#include "cluster/oasis/lp_bound.h"
#include "cluster/oasis/method.h"
#include "cluster/oasis/oasis_experiment.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"

namespace dmlkit::cluster::oasis {
namespace {

OasisExperiment preset() { return load_oasis_experiment(default_experiments_dir() + "/oasis-sim.yaml"); }

// The admission of each job of a load-1 workload arriving on a cluster that OASiS has already
// filled with the jobs before it (the state of a real run), timed per decision.
void BM_OasisAdmissionDecision(benchmark::State& state) {
  const OasisExperiment e = preset();
  const OasisCluster c = experiment_cluster(e, e.worker_servers + e.ps_servers);
  OasisWorkloadSpec spec = e.workload;
  spec.load = 1.0;
  const auto jobs = oasis_workload(spec, c, 1, default_data_dir());
  const PriceBounds prices = price_bounds(spec, c.shared_pool());
  // Fill with the first half of the jobs, then time decisions on the second half (cycled).
  SlotLedger ledger(c);
  const size_t half = jobs.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    const ScheduleChoice ch = best_schedule(jobs[i], ledger, prices);
    if (ch.found && ch.payoff > 0)
      for (const auto& a : ch.slots) ledger.add(jobs[i], a);
  }
  size_t i = half;
  for (auto _ : state) {
    state.PauseTiming();
    SlotLedger copy = ledger;  // the price update must not accumulate across iterations
    state.ResumeTiming();
    const ScheduleChoice ch = best_schedule(jobs[i], copy, prices);
    if (ch.found && ch.payoff > 0)
      for (const auto& a : ch.slots) copy.add(jobs[i], a);
    benchmark::DoNotOptimize(ch.payoff);
    i = i + 1 < jobs.size() ? i + 1 : half;
  }
}
BENCHMARK(BM_OasisAdmissionDecision)->Unit(benchmark::kMillisecond);

void BM_OasisSimRun(benchmark::State& state, const char* method) {
  const OasisExperiment e = preset();
  const OasisCluster c = experiment_cluster(e, e.worker_servers + e.ps_servers);
  const auto jobs = oasis_workload(e.workload, c, 1, default_data_dir());
  const OasisProblem p{&c, &jobs, &e.workload};
  for (auto _ : state) {
    auto m = make_oasis_method(method, {}, 1);
    const OasisRun run = m->run(p);
    benchmark::DoNotOptimize(check_and_measure(p, run).total_utility);
  }
  state.counters["jobs"] = static_cast<double>(jobs.size());
}
BENCHMARK_CAPTURE(BM_OasisSimRun, oasis, "oasis")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OasisSimRun, fifo, "fifo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OasisSimRun, drf, "drf")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OasisSimRun, rrh, "rrh")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OasisSimRun, dorm, "dorm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_OasisSimRun, tetris, "tetris")->Unit(benchmark::kMillisecond);

void BM_OasisLpBound100Jobs(benchmark::State& state) {
  const OasisExperiment e = preset();
  const OasisCluster c = experiment_cluster(e, e.worker_servers + e.ps_servers);
  OasisWorkloadSpec spec = e.workload;
  spec.load = 3.0;  // about 100 jobs
  auto jobs = oasis_workload(spec, c, 1, default_data_dir());
  if (jobs.size() > 100) jobs.resize(100);
  LpBoundOptions o;
  o.max_iterations = e.lp_max_iterations;
  for (auto _ : state) {
    const LpBound b = lp_upper_bound(c, jobs, o);
    benchmark::DoNotOptimize(b.upper_bound);
    state.counters["iterations"] = b.iterations;
    state.counters["converged"] = b.converged ? 1 : 0;
  }
  state.counters["jobs"] = static_cast<double>(jobs.size());
}
BENCHMARK(BM_OasisLpBound100Jobs)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace dmlkit::cluster::oasis
BENCHMARK_MAIN();
