// Speed of the Pollux-profile simulation on the bundled workloads, for the comparison with the
// reference simulator in docs/performance.md. Measures simulate() alone (workload, cluster and the
// application profiles are loaded once, outside the timed loop; the reference also loads once).
#include <benchmark/benchmark.h>

#include <string>

#include "cluster/model/cluster_spec.h"
#include "core/data_dir.h"
#include "cluster/sim/metrics.h"
#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"

namespace cl = dmlkit::cluster;

static void BM_PolluxProfile(benchmark::State& state, const std::string& policy_name) {
  const std::string workload_name = "pollux-" + std::to_string(state.range(0));
  const cl::ClusterSpec cluster = cl::ClusterSpec::parse("16x4");
  cl::WorkloadOptions wo;
  wo.data_dir = dmlkit::default_data_dir();
  wo.cluster_gpus = cluster.total_gpus();
  const cl::Workload workload = cl::load_workload(workload_name, wo);
  cl::PolicyOptions po;
  po.profile = "pollux";
  cl::SimConfig config;
  config.profile = cl::SimProfile::Pollux;
  double avg_jct_s = 0;
  for (auto _ : state) {
    auto policy = cl::make_policy(policy_name, po);
    cl::SimResult r = cl::simulate(cluster, workload, policy_name, *policy, config);
    // (benchmark 1.7's DoNotOptimize on a double can clobber it with GCC; keep the result alive
    // through the job records instead.)
    benchmark::DoNotOptimize(r.jobs.data());
    avg_jct_s = cl::compute_metrics(r).avg_jct_s;
  }
  state.SetLabel("avg_jct_s=" + std::to_string(avg_jct_s));
}

BENCHMARK_CAPTURE(BM_PolluxProfile, tiresias, std::string("tiresias"))->DenseRange(1, 8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PolluxProfile, optimus_oracle, std::string("optimus-oracle"))
    ->DenseRange(1, 8)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
