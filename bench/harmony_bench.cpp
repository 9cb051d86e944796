// Harmony's decision time (docs/harmony-learning.md, docs/performance.md; the target: a
// placement decision for 20 new jobs on 50 servers under 5 ms): HarmonyPlacer::decide for 20 new
// PS jobs of the eight Harmony types (user-given 1-4 workers, PSs = max(1, round(w / 2)), the
// harmony-50 preset's demands) on the harmony-50 cluster with 30 jobs already running, one
// inference per task. The model is the bundled harmony-50 one when present, else a freshly
// initialised network of the default shape (N = 60 job slots, N' = 20, 2 x 64).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "cluster/policies/harmony/harmony_model.h"
#include "cluster/policies/harmony/harmony_placer.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"

namespace dmlkit::cluster {
namespace {

HarmonyModel model_for(int servers) {
  if (std::filesystem::is_regular_file(data_path("models/harmony-50.json"))) return load_harmony_model("harmony-50");
  HarmonyModel m;
  m.shape = {servers, 60, 20, kHarmonyTypes};
  m.policy.shape = harmony_policy_shape(m.shape, {64, 64});
  Rng rng(1);
  m.policy.parameters = learn::mlp_initial_parameters(m.policy.shape, rng);
  return m;
}

void BM_HarmonyDecision20Jobs50Servers(benchmark::State& state) {
  const Experiment e = load_experiment("harmony-50", default_experiments_dir());
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const HarmonyModel m = model_for(cluster.num_servers());
  PsWorkloadSpec spec = e.workload;
  spec.num_jobs = 50;
  const Workload w = ps_workload(spec, 1, default_data_dir());
  // 30 running jobs placed by the network itself, then 20 new ones.
  HarmonyPlacer placer(m.shape, cluster, m.policy, 1);
  std::vector<const PsJobSpec*> first, fresh;
  for (int i = 0; i < 30; ++i) first.push_back(w.jobs[i].ps.get());
  for (int i = 30; i < 50; ++i) fresh.push_back(w.jobs[i].ps.get());
  std::vector<Placement> out;
  placer.decide({}, first, out);
  std::vector<HarmonyRunningJob> running;
  for (int i = 0; i < 30; ++i)
    if (!out[i].empty()) running.push_back({first[i], out[i]});
  long placed = 0, steps0 = placer.stats().steps;
  for (auto _ : state) {
    placer.decide(running, fresh, out);
    benchmark::DoNotOptimize(out.data());
  }
  for (const auto& p : out) placed += p.empty() ? 0 : 1;
  state.counters["running"] = static_cast<double>(running.size());
  state.counters["placed"] = static_cast<double>(placed);
  state.counters["inferences"] =
      static_cast<double>(placer.stats().steps - steps0) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}
BENCHMARK(BM_HarmonyDecision20Jobs50Servers)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dmlkit::cluster

BENCHMARK_MAIN();
