// Benchmarks of the workload readers (the whole Philly trace, a Pollux workload, the synthetic
// generator, the Alibaba node list), of one scheduling decision of the baseline policies, and of
// the whole Philly replay in simulate() (fifo, tiresias).
//
// `philly_bench --philly-cluster` prints the cluster shorthand that bench/run.sh replays the whole
// Philly trace on, sized to the trace (docs/cluster-workloads.md, "Replaying the whole Philly
// trace"): 8-GPU servers, enough for the largest job and for the trace's mean GPU demand (total
// GPU-seconds / submission span) at 80% load.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>

#include "cluster/model/cluster_spec.h"
#include "cluster/policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

void BM_LoadPhillyTrace(benchmark::State& state) {
  size_t jobs = 0;
  for (auto _ : state) {
    Workload w = load_workload("philly", WorkloadOptions{});
    jobs = w.jobs.size();
    benchmark::DoNotOptimize(w.jobs.data());
  }
  state.counters["jobs"] = static_cast<double>(jobs);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * jobs));
}
BENCHMARK(BM_LoadPhillyTrace)->Unit(benchmark::kMillisecond);

void BM_LoadPolluxWorkload(benchmark::State& state) {
  for (auto _ : state) {
    Workload w = load_workload("pollux-6", WorkloadOptions{});
    benchmark::DoNotOptimize(w.jobs.data());
  }
}
BENCHMARK(BM_LoadPolluxWorkload)->Unit(benchmark::kMicrosecond);

void BM_SyntheticWorkload(benchmark::State& state) {
  SyntheticSpec spec;
  spec.num_jobs = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Workload w = synthetic_workload(spec, 1);
    benchmark::DoNotOptimize(w.jobs.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SyntheticWorkload)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_ParseAlibabaCluster(benchmark::State& state) {
  for (auto _ : state) {
    ClusterSpec c = ClusterSpec::parse("alibaba-2023");
    benchmark::DoNotOptimize(c.servers.data());
  }
}
BENCHMARK(BM_ParseAlibabaCluster)->Unit(benchmark::kMicrosecond);

// One decision of a policy with `range(0)` active jobs (half of them running) on 64 x 8 GPUs.
class FixedOracle final : public JobOracle {
 public:
  FixedOracle(double remaining_s, int request) : remaining_s_(remaining_s), request_(request) {}
  double remaining_time_s(int gpus) const override {
    return gpus <= 0 ? std::numeric_limits<double>::infinity() : remaining_s_ * request_ / std::min(gpus, request_);
  }
  double step_time_s(int gpus) const override { return remaining_time_s(gpus); }
  double remaining_iterations() const override { return 0; }
  int max_gpus() const override { return request_; }

 private:
  double remaining_s_;
  int request_;
};

void BM_PolicyDecision(benchmark::State& state, const char* policy) {
  const ClusterSpec cluster = ClusterSpec::homogeneous(64, 8);
  SyntheticSpec spec;
  spec.num_jobs = static_cast<int>(state.range(0));
  const Workload w = synthetic_workload(spec, 3);
  std::deque<FixedOracle> oracles;
  std::vector<JobView> views(w.jobs.size());
  std::vector<int> free(cluster.servers.size(), 8);
  FreeGpus pool(free);
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    oracles.emplace_back(w.jobs[i].duration_s, w.jobs[i].num_gpus);
    views[i].job = &w.jobs[i];
    views[i].oracle = &oracles.back();
    views[i].queued_since_s = w.jobs[i].arrival_s;
    if (i % 2 == 0) pool.place(w.jobs[i].num_gpus, PlacementKind::Consolidate, views[i].placement);
  }
  auto p = make_policy(policy, PolicyOptions{});
  std::vector<Placement> out(views.size());
  ClusterView view;
  view.cluster = &cluster;
  for (auto _ : state) {
    for (size_t i = 0; i < views.size(); ++i) out[i] = views[i].placement;
    p->schedule(view, views, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK_CAPTURE(BM_PolicyDecision, fifo, "fifo")->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PolicyDecision, srtf, "srtf")->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PolicyDecision, drf, "drf")->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PolicyDecision, tetris, "tetris")->Arg(1000)->Unit(benchmark::kMicrosecond);

// The whole Philly trace on 59 x 8 GPUs (the CLI replay of bench/run.sh without the process start,
// the trace reading and the output files): simulate() and the summary metrics, as in
// docs/performance.md.
void BM_PhillyReplay(benchmark::State& state, const char* policy) {
  const Workload w = load_workload("philly", WorkloadOptions{});
  const ClusterSpec cluster = ClusterSpec::homogeneous(59, 8);
  size_t decisions = 0;
  for (auto _ : state) {
    auto p = make_policy(policy, PolicyOptions{});
    const SimResult r = simulate(cluster, w, policy, *p, SimConfig{});
    const Metrics m = compute_metrics(r);
    decisions = r.rounds.size();
    benchmark::DoNotOptimize(m.avg_jct_s);
  }
  state.counters["decisions"] = static_cast<double>(decisions);
}
BENCHMARK_CAPTURE(BM_PhillyReplay, fifo, "fifo")->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PhillyReplay, tiresias, "tiresias")->Unit(benchmark::kMillisecond)->Iterations(1);

// The cluster the whole Philly trace is replayed on (see the file comment).
int print_philly_cluster() {
  constexpr int kGpusPerServer = 8;
  constexpr double kTargetLoad = 0.8;
  const Workload w = load_workload("philly", WorkloadOptions{});
  double gpu_s = 0, span_s = 0;
  int max_gpus = 0;
  for (const Job& j : w.jobs) {
    gpu_s += j.duration_s * j.num_gpus;
    span_s = std::max(span_s, j.arrival_s);
    max_gpus = std::max(max_gpus, j.num_gpus);
  }
  const double mean_demand_gpus = span_s > 0 ? gpu_s / span_s : 0.0;
  const int for_load = static_cast<int>(std::ceil(mean_demand_gpus / kTargetLoad / kGpusPerServer));
  const int for_largest = (max_gpus + kGpusPerServer - 1) / kGpusPerServer;
  const int servers = std::max({1, for_load, for_largest});
  std::fprintf(stderr,
               "philly: %zu jobs, %.4g GPU-s over %.0f s of submissions: mean demand %.1f GPUs, largest job %d "
               "GPUs -> %d servers x %d GPUs (%.0f%% load)\n",
               w.jobs.size(), gpu_s, span_s, mean_demand_gpus, max_gpus, servers, kGpusPerServer,
               100.0 * mean_demand_gpus / (servers * kGpusPerServer));
  std::printf("%dx%d\n", servers, kGpusPerServer);
  return 0;
}

}  // namespace
}  // namespace dmlkit::cluster

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--philly-cluster") == 0) {
    try {
      return dmlkit::cluster::print_philly_cluster();
    } catch (const dmlkit::Error& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
