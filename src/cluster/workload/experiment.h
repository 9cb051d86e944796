// Experiment presets for parameter-server scheduling (experiments/<name>.yaml): a cluster, a PS
// workload generator, simulator settings, the policies to compare and the seeds to average over.
// `dmlkit cluster compare --experiment NAME` runs one; `dmlkit cluster experiments` lists them.
// File format: docs/optimus.md.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/sim/metrics.h"
#include "cluster/workload/ps_workload.h"
#include "cluster/sim/simulator.h"

namespace dmlkit::cluster {

struct Experiment {
  // "sim": the round-based simulator (this file's fields); "oasis": an OASiS-model preset
  // (`engine: oasis`), of which only name, description, path, seeds and policies are read here --
  // cluster/oasis/oasis_experiment.h loads the rest (docs/oasis.md).
  std::string engine = "sim";
  std::string name;
  std::string description;
  std::string path;
  std::string cluster;  // a cluster spec ClusterSpec::parse accepts (resolved)
  std::vector<uint64_t> seeds = {1};
  std::vector<std::string> policies;
  std::map<std::string, std::string> policy_params;
  std::string speed_model = "table";  // table | table-dl2 | formula | analytic
  std::string speed_table;            // table model: CSV path ("" = the bundled measurements)
  double round_s = 600;
  double restart_delay_s = 30;
  bool charge_first_start = true;
  double measure_noise = 0.05;
  double straggler_prob = 0;
  double straggler_min = 1.5;
  double straggler_max = 3.0;
  double scale_cost_worker_s = 0;  // SimConfig::ps_scale_cost_worker_s
  double scale_cost_ps_s = 0;      // SimConfig::ps_scale_cost_ps_s
  double max_time_s = 1e9;
  // Co-location interference (speed/interference.h, docs/harmony.md): none | contention | gavel,
  // and its data file ("" = the bundled one). `cluster compare --interference` overrides it.
  std::string interference = "none";
  std::string interference_file;
  PsWorkloadSpec workload;
};

// DMLKIT_EXPERIMENTS_DIR, else the source tree's experiments/.
std::string default_experiments_dir();
// Every experiment file (YAML with a top-level `experiment` key) in `dir`, sorted by name.
std::vector<Experiment> list_experiments(const std::string& dir);
// By name (dir/NAME.yaml) or path. Throws Error(file, line, field) on bad content.
Experiment load_experiment(const std::string& name_or_path, const std::string& dir);

// The simulator settings of an experiment (what run_experiment simulates with).
SimConfig experiment_sim_config(const Experiment& e, const std::string& data_dir);

struct ExperimentRun {
  std::string policy;
  uint64_t seed = 0;
  SimResult result;
  Metrics metrics;
};

// Runs every policy on the workload of every seed (policies in the given order, seeds outer), on
// up to `threads` threads (core/parallel_for.h); the runs come back in that order and identical
// for any number of threads. `on_run(policy, seed)` is called before each simulation (may be
// empty; calls are serialised, in no fixed order when threads > 1).
std::vector<ExperimentRun> run_experiment(const Experiment& e, const std::string& data_dir,
                                          const std::function<void(const std::string&, uint64_t)>& on_run = {},
                                          int threads = 1);

}  // namespace dmlkit::cluster
