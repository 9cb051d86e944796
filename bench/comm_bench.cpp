// Benchmarks of the comm/ simulator (issue 4 targets): one simulated iteration of ResNet-50 on 16
// workers with ByteScheduler (target < 50 ms, fork of the simulation process included) and one
// Bayesian-optimisation tuning run of 20 probes (target < 30 s).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "comm/iteration_sim.h"
#include "comm/model_graph.h"
#include "comm/tuner.h"

using namespace dmlkit::comm;

namespace {

TrainingWorkload resnet50() { return make_workload(load_model("resnet50", default_model_graph_dir())); }

NetworkConfig net(Arch arch, int workers) {
  NetworkConfig n;
  n.arch = arch;
  n.workers = workers;
  n.servers = workers;
  n.bandwidth_Bps = 10e9 / 8;
  return n;
}

void BM_Resnet50Iteration16Workers(benchmark::State& state) {
  const auto w = resnet50();
  const Arch arch = state.range(0) == 0 ? Arch::allreduce : Arch::ps;
  SimOptions one;
  one.iterations = 1;
  one.warmup = 0;
  one.timeline = false;
  for (auto _ : state) benchmark::DoNotOptimize(simulate(w, net(arch, 16), "bytescheduler", {}, one).iteration_mean_s);
  state.SetLabel(arch == Arch::ps ? "ps, 16 servers" : "allreduce");
}
BENCHMARK(BM_Resnet50Iteration16Workers)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_TuneByteSchedulerVgg16(benchmark::State& state) {
  const auto w = make_workload(load_model("vgg16", default_model_graph_dir()));
  const auto n = net(Arch::ps, 8);
  for (auto _ : state) {
    auto r = bayes_optimize(
        {{"partition_mb", 1, 128, true}, {"credit_mb", 4, 256, true}},
        [&](const std::vector<double>& x) {
          const dmlkit::KnobValues knobs{{"bytescheduler.partition-mb", fmt::format("{}", x[0])},
                                         {"bytescheduler.credit-mb", fmt::format("{}", x[1])}};
          return simulate(w, n, "bytescheduler", knobs).iteration_mean_s;
        },
        BayesOptions{}, dmlkit::Rng(1));
    benchmark::DoNotOptimize(r.best);
  }
}
BENCHMARK(BM_TuneByteSchedulerVgg16)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
