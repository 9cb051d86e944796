// DL2's decision time (docs/dl2.md, docs/performance.md): all inferences of one slot on DL2's
// 500-server cluster with 200 jobs (the paper reports under 3 ms per decision; the target
// is 0.3 ms per slot), measured inside Dl2Policy::schedule during a whole dl2-500 simulation, and
// the network's single forward pass. The model is the bundled dl2-500 one when present, else a
// freshly initialised network of the same shape (the number of inferences per slot then differs).
// Counters: slots, inferences per slot, the jobs a slot sees (jobs_per_slot), the tasks its
// allocation holds (workers_per_slot, ps_per_slot: each job's initial bundle, then one task or a
// bundle of two per inference), and the thread's CPU time per slot (cpu_us_per_slot: the figure
// to quote on a shared machine, where the wall time includes other processes' share).
// $DMLKIT_DL2_BENCH_MODEL names another dl2-500 model for the *Model variants (the preset's default,
// dl2-500-shared-w120, is one), and $DMLKIT_DL2_BENCH_WINDOW the window a column-shared one runs
// at there (`dl2.window`; default: the model's). The *Incremental variants run the network's fast
// path (dl2.incremental=on, the run-time default). BM_Dl2SlotAllocationOfPolicy counts, without
// timing, what another policy's slots hold ($DMLKIT_DL2_BENCH_POLICY).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "cluster/policies/dl2/dl2_policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "learn/mlp.h"

namespace dmlkit::cluster {
namespace {

struct Net {
  learn::StoredNet net;
  int window = 40;
};

// The bundled dl2-500 model, or with `from_env` the model $DMLKIT_DL2_BENCH_MODEL names.
Net dl2_500_net(bool from_env = false) {
  Net n;
  const char* env = std::getenv("DMLKIT_DL2_BENCH_MODEL");
  const std::string name = from_env && env != nullptr ? env : "dl2-500";
  if (name != "dl2-500" || std::filesystem::is_regular_file(data_path("models/dl2-500.json"))) {
    const Dl2Model m = load_dl2_model(name);
    const char* window = from_env ? std::getenv("DMLKIT_DL2_BENCH_WINDOW") : nullptr;
    n.net = dl2_policy_at_window(m, window != nullptr ? std::atoll(window) : 0);
    n.window = n.net.shape.inputs / kDl2Rows;
  } else {
    Rng rng(1);
    n.net = dl2_initial_net("code", 40, false, rng);
  }
  return n;
}

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

class Timed final : public Policy {
 public:
  explicit Timed(Policy& p) : p_(p) {}
  void schedule(const ClusterView& v, std::span<const JobView> j, std::span<Placement> o) override {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_s();
    p_.schedule(v, j, o);
    cpu_s += thread_cpu_s() - c0;
    total_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++slots;
    jobs += static_cast<long>(j.size());
    for (size_t i = 0; i < o.size(); ++i) {
      Tasks& type = by_type[j[i].job->ps->job_type().name];
      ++type.jobs;
      for (const Slice& s : o[i]) {
        workers += s.workers;
        ps += s.ps;
        type.workers += s.workers;
        type.ps += s.ps;
      }
    }
  }
  bool handles_ps_jobs() const override { return true; }
  double total_s = 0, cpu_s = 0;
  long slots = 0, jobs = 0, workers = 0, ps = 0;  // jobs seen and tasks placed, summed over the slots
  struct Tasks {
    long jobs = 0, workers = 0, ps = 0;
  };
  std::map<std::string, Tasks> by_type;  // the same per job type (a job counted once per slot)

 private:
  Policy& p_;
};

// The dl2-500 preset's run that every benchmark here simulates: its cluster, simulator settings
// and the workload of seed 1.
struct Dl2500Run {
  Experiment e = load_experiment("dl2-500", default_experiments_dir());
  ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  SimConfig config = experiment_sim_config(e, default_data_dir());
  Workload w = ps_workload(e.workload, 1, default_data_dir());
};

void slot_decisions(benchmark::State& state, bool from_env, bool incremental) {
  const Dl2500Run run;
  const Net net = dl2_500_net(from_env);
  Dl2PolicyConfig pc;
  pc.shape.window = net.window;
  pc.incremental = incremental;
  for (auto _ : state) {
    Dl2Policy p(pc, net.net, 1);
    Timed t(p);
    simulate(run.cluster, run.w, "dl2", t, run.config);
    const double slots = static_cast<double>(t.slots);
    state.SetIterationTime(t.total_s / slots);
    state.counters["slots"] = slots;
    state.counters["inferences_per_slot"] = static_cast<double>(p.inferences()) / slots;
    state.counters["cpu_us_per_slot"] = 1e6 * t.cpu_s / slots;
    state.counters["jobs_per_slot"] = static_cast<double>(t.jobs) / slots;
    state.counters["workers_per_slot"] = static_cast<double>(t.workers) / slots;
    state.counters["ps_per_slot"] = static_cast<double>(t.ps) / slots;
  }
}

// What another policy's slots hold on the same run (no timing: its counters are the figures):
// $DMLKIT_DL2_BENCH_POLICY (default optimus-dl2), with the dl2-500 preset's policy parameters as
// `cluster compare` gives them and those of $DMLKIT_DL2_BENCH_PARAMS ("key=value key=value"); per
// job type, the mean workers and PSs a job holds (workers_per_job_TYPE, ps_per_job_TYPE).
// docs/reproduction-dl2.md compares dl2, optimus-dl2 and fixed-dl2.
void BM_Dl2SlotAllocationOfPolicy(benchmark::State& state) {
  const Dl2500Run run;
  const char* env = std::getenv("DMLKIT_DL2_BENCH_POLICY");
  const std::string name = env != nullptr ? env : "optimus-dl2";
  PolicyOptions o;
  o.experiment = "dl2-500";
  o.params = run.e.policy_params;
  if (const char* params = std::getenv("DMLKIT_DL2_BENCH_PARAMS"); params != nullptr) {  // "k=v k=v"
    std::vector<std::string> kv;
    std::istringstream words(params);
    for (std::string word; words >> word;) kv.push_back(word);
    add_policy_params(o.params, kv);
  }
  for (auto _ : state) {
    const std::unique_ptr<Policy> p = make_policy(name, o);
    Timed t(*p);
    simulate(run.cluster, run.w, name, t, run.config);
    const double slots = static_cast<double>(t.slots);
    state.counters["slots"] = slots;
    state.counters["jobs_per_slot"] = static_cast<double>(t.jobs) / slots;
    state.counters["workers_per_slot"] = static_cast<double>(t.workers) / slots;
    state.counters["ps_per_slot"] = static_cast<double>(t.ps) / slots;
    for (const auto& [type, n] : t.by_type) {
      state.counters["workers_per_job_" + type] = static_cast<double>(n.workers) / static_cast<double>(n.jobs);
      state.counters["ps_per_job_" + type] = static_cast<double>(n.ps) / static_cast<double>(n.jobs);
    }
  }
}
BENCHMARK(BM_Dl2SlotAllocationOfPolicy)->Iterations(1);

void BM_Dl2SlotDecision500Servers(benchmark::State& state) { slot_decisions(state, false, false); }
BENCHMARK(BM_Dl2SlotDecision500Servers)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(3);

void BM_Dl2SlotDecision500ServersModel(benchmark::State& state) { slot_decisions(state, true, false); }
BENCHMARK(BM_Dl2SlotDecision500ServersModel)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(3);

void BM_Dl2SlotDecision500ServersIncremental(benchmark::State& state) { slot_decisions(state, false, true); }
BENCHMARK(BM_Dl2SlotDecision500ServersIncremental)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(3);

void BM_Dl2SlotDecision500ServersModelIncremental(benchmark::State& state) { slot_decisions(state, true, true); }
BENCHMARK(BM_Dl2SlotDecision500ServersModelIncremental)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(3);

void BM_Dl2Inference(benchmark::State& state) {
  const Net net = dl2_500_net();
  Dl2Network f(net.net, /*incremental=*/false);  // run(): the exact forward pass either way
  std::vector<float> x(f.inputs(), 0.5f);
  for (auto _ : state) benchmark::DoNotOptimize(f.run(x.data()).data());
}
BENCHMARK(BM_Dl2Inference)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dmlkit::cluster

BENCHMARK_MAIN();
