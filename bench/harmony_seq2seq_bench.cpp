// harmony-seq2seq's decision time (docs/harmony-seq2seq.md, docs/performance.md; the issue's
// target for Harmony: a placement decision for 20 new jobs on 50 servers under 5 ms):
// Seq2SeqPlacer::decide for 20 new jobs of the harmony-50 preset on its cluster with 30 jobs already
// running, one inference (encoder over all jobs + pointer over the 50 servers) per task, run
// incrementally (learn/attn_incremental.h: only what the changed tokens reach). The model
// is the bundled harmony-seq2seq-testbed one (trained on 6 servers: the network's size does not
// depend on the cluster's) when present, else a freshly initialised network of the default size.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"

namespace dmlkit::cluster {
namespace {

Seq2SeqModel model() {
  if (std::filesystem::is_regular_file(data_path("models/harmony-seq2seq-testbed.json")))
    return load_s2s_model("harmony-seq2seq-testbed");
  Seq2SeqModel m;
  m.policy.shape = s2s_policy_shape(32, 4, 64, 64);
  Rng rng(1);
  m.policy.parameters = learn::attn_initial_parameters(m.policy.shape, rng);
  return m;
}

void BM_Seq2SeqDecision20Jobs50Servers(benchmark::State& state) {
  const Experiment e = load_experiment("harmony-50", default_experiments_dir());
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const Seq2SeqModel m = model();
  PsWorkloadSpec spec = e.workload;
  spec.num_jobs = 50;
  const Workload w = ps_workload(spec, 1, default_data_dir());
  Seq2SeqPlacer placer(cluster, m.policy, 1);
  std::vector<const PsJobSpec*> first, fresh;
  for (int i = 0; i < 30; ++i) first.push_back(w.jobs[i].ps.get());
  for (int i = 30; i < 50; ++i) fresh.push_back(w.jobs[i].ps.get());
  std::vector<Placement> out;
  placer.decide({}, first, out);
  std::vector<S2sRunningJob> running;
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
BENCHMARK(BM_Seq2SeqDecision20Jobs50Servers)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dmlkit::cluster

BENCHMARK_MAIN();
