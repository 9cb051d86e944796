// The decision benchmark both Harmony placers share (bench/harmony_bench.cpp,
// bench/harmony_seq2seq_bench.cpp; the target: a placement decision for 20 new jobs on 50
// servers under 5 ms): the harmony-50 preset's cluster and the first 50 jobs of its workload (seed
// 1); the placer places the first 30 itself (they run), then every iteration decides on the 20
// others. Counters: running jobs, jobs placed, inferences (tasks) per decision.
#pragma once
#include <benchmark/benchmark.h>

#include <vector>

#include "cluster/policies/harmony/learned_placer.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"

namespace dmlkit::cluster {

struct Harmony50Bench {
  ClusterSpec cluster;
  Workload workload;
};

inline Harmony50Bench harmony50_bench() {
  const Experiment e = load_experiment("harmony-50", default_experiments_dir());
  PsWorkloadSpec spec = e.workload;
  spec.num_jobs = 50;
  return {ClusterSpec::parse(e.cluster), ps_workload(spec, 1, default_data_dir())};
}

template <class Placer>
void run_harmony50_decisions(benchmark::State& state, const Workload& w, Placer& placer) {
  std::vector<const PsJobSpec*> first, fresh;
  for (int i = 0; i < 30; ++i) first.push_back(w.jobs[i].ps.get());
  for (int i = 30; i < 50; ++i) fresh.push_back(w.jobs[i].ps.get());
  std::vector<Placement> out;
  placer.decide({}, first, out);
  std::vector<RunningPsJob> running;
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
  state.counters["inferences"] = static_cast<double>(placer.stats().steps - steps0) /
                                 static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

}  // namespace dmlkit::cluster
