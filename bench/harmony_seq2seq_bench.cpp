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
#include "core/data_dir.h"
#include "harmony_decision_bench.h"

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
  const Harmony50Bench b = harmony50_bench();
  const Seq2SeqModel m = model();
  Seq2SeqPlacer placer(b.cluster, m.policy, 1);
  run_harmony50_decisions(state, b.workload, placer);
}
BENCHMARK(BM_Seq2SeqDecision20Jobs50Servers)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dmlkit::cluster

BENCHMARK_MAIN();
