// Benchmark of the ps/ runs (issue 16 target): 500 iterations of VGG-16 with 8 workers and 4
// parameter servers under psld, with the rotating straggler scenario, in under 10 s (fork of the
// simulation process included); mxnet alongside for scale.
#include <benchmark/benchmark.h>

#include "comm/model_graph.h"
#include "ps/runner.h"

using namespace dmlkit;

namespace {

void BM_Vgg16_500Iterations(benchmark::State& state, const char* policy) {
  const auto w = comm::make_workload(comm::load_model("vgg16", comm::default_model_graph_dir()));
  comm::NetworkConfig net;
  net.workers = 8;
  net.servers = 4;
  net.bandwidth_Bps = 10e9 / 8;
  net.op_overhead_s = 50e-6;  // as `dmlkit ps compare`
  ps::PsRunOptions o;
  o.iterations = 500;
  const auto s = ps::straggler_preset("rotating", 4, 500);
  for (auto _ : state) benchmark::DoNotOptimize(ps::run_policy(w, net, policy, {}, s, o).total_s);
}
BENCHMARK_CAPTURE(BM_Vgg16_500Iterations, psld, "psld")->Iterations(3)->Unit(benchmark::kSecond);
BENCHMARK_CAPTURE(BM_Vgg16_500Iterations, mxnet, "mxnet")->Iterations(3)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
