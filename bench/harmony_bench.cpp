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
#include "core/data_dir.h"
#include "harmony_decision_bench.h"

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
  const Harmony50Bench b = harmony50_bench();
  const HarmonyModel m = model_for(b.cluster.num_servers());
  HarmonyPlacer placer(m.shape, b.cluster, m.policy, 1);
  run_harmony50_decisions(state, b.workload, placer);
}
BENCHMARK(BM_HarmonyDecision20Jobs50Servers)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dmlkit::cluster

BENCHMARK_MAIN();
