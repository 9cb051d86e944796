// Experiment presets: parsing experiments/<name>.yaml and running them; see experiment.h.
#include "cluster/workload/experiment.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "cluster/model/cluster_spec.h"
#include "cluster/model/harmony_job.h"
#include "cluster/speed/interference.h"
#include "core/data_dir.h"
#include "cluster/policy.h"
#include "cluster/speed/ps_speed.h"
#include "core/error.h"
#include "core/yaml.h"
#include "cluster/sim/runner.h"

namespace dmlkit::cluster {

namespace fs = std::filesystem;

namespace {

using yaml::check_keys;
using yaml::line_of;
using yaml::number;

// A scalar as text (may be empty); Error naming file, line and field if it is a list or mapping.
std::string text(const std::string& path, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) throw Error(path, line_of(n), field, "expected a value, got a list or mapping");
  return n.Scalar();
}

PsWorkloadSpec parse_workload(const std::string& path, const YAML::Node& w) {
  if (!w.IsMap()) throw Error(path, line_of(w), "workload", "expected a mapping");
  check_keys(path, w,
             {"num_jobs", "arrivals", "max_arrivals_per_slot", "window_slots", "slot_s", "max_num_epochs",
              "epoch_jitter", "catalogue", "types", "demands", "user_workers", "user_ps_per_worker", "async_fraction",
              "allreduce_fraction", "loss_noise_sd", "convergence_threshold"});
  PsWorkloadSpec s;
  if (w["catalogue"]) s.catalogue = text(path, w["catalogue"], "catalogue");
  if (s.catalogue != "dl2" && s.catalogue != "harmony")
    throw Error(path, line_of(w["catalogue"]), "catalogue", "expected dl2 or harmony");
  const bool harmony = s.catalogue == "harmony";
  if (w["num_jobs"]) s.num_jobs = static_cast<int>(number(path, w["num_jobs"], "num_jobs", 1, 1e6));
  if (w["arrivals"]) s.arrivals = text(path, w["arrivals"], "arrivals");
  if (w["max_arrivals_per_slot"])
    s.max_arrivals_per_slot =
        static_cast<int>(number(path, w["max_arrivals_per_slot"], "max_arrivals_per_slot", 1, 1e4));
  if (w["window_slots"]) s.window_slots = static_cast<int>(number(path, w["window_slots"], "window_slots", 1, 1e6));
  if (w["slot_s"]) s.slot_s = number(path, w["slot_s"], "slot_s", 1e-3, 1e9);
  if (w["max_num_epochs"]) s.max_num_epochs = number(path, w["max_num_epochs"], "max_num_epochs", 1e-6, 1e12);
  if (w["epoch_jitter"]) s.epoch_jitter = number(path, w["epoch_jitter"], "epoch_jitter", 0, 0.99);
  if (w["types"]) {
    if (!w["types"].IsSequence()) throw Error(path, line_of(w["types"]), "types", "expected a list");
    for (const auto& t : w["types"]) {
      const std::string name = text(path, t, "types");
      if ((harmony ? find_harmony_job_type(name) : find_ps_job_type(name)) < 0)
        throw Error(path, line_of(t), "types",
                    "unknown job type '" + name + "'" +
                        (harmony ? " (known Harmony types: " + harmony_job_type_names() + ")" : std::string()));
      s.types.push_back(name);
    }
  }
  if (w["demands"]) s.demands = text(path, w["demands"], "demands");
  if (s.demands != "dl2" && s.demands != "testbed")
    throw Error(path, line_of(w["demands"]), "demands", "expected dl2 or testbed");
  if (w["user_workers"]) {
    const YAML::Node u = w["user_workers"];
    if (!u.IsSequence() || u.size() != 2) throw Error(path, line_of(u), "user_workers", "expected [min, max]");
    s.user_workers_min = static_cast<int>(number(path, u[0], "user_workers", 1, 1000));
    s.user_workers_max = static_cast<int>(number(path, u[1], "user_workers", s.user_workers_min, 1000));
  }
  if (w["user_ps_per_worker"])
    s.user_ps_per_worker = number(path, w["user_ps_per_worker"], "user_ps_per_worker", 0.01, 100);
  if (w["async_fraction"]) s.async_fraction = number(path, w["async_fraction"], "async_fraction", 0, 1);
  if (w["allreduce_fraction"]) {
    s.allreduce_fraction = number(path, w["allreduce_fraction"], "allreduce_fraction", 0, 1);
    if (!harmony && s.allreduce_fraction > 0)
      throw Error(path, line_of(w["allreduce_fraction"]), "allreduce_fraction",
                  "all-reduce jobs need catalogue: harmony");
  }
  if (w["loss_noise_sd"]) s.loss_noise_sd = number(path, w["loss_noise_sd"], "loss_noise_sd", 0, 10);
  if (w["convergence_threshold"])
    s.convergence_threshold = number(path, w["convergence_threshold"], "convergence_threshold", 1e-6, 10);
  return s;
}

Experiment parse(const std::string& path) {
  const YAML::Node root = yaml::load_file(path);
  if (!root.IsMap() || !root["experiment"])
    throw Error(path, 1, "experiment", "not an experiment file (no 'experiment' key)");
  if (root["engine"]) {
    const std::string engine = text(path, root["engine"], "engine");
    if (engine != "sim" && engine != "oasis")
      throw Error(path, line_of(root["engine"]), "engine", "expected sim or oasis");
    if (engine == "oasis") {
      // The listing's fields only; the OASiS loader checks the whole file when it runs.
      Experiment e;
      e.engine = engine;
      e.path = path;
      e.name = text(path, root["experiment"], "experiment");
      if (root["description"]) e.description = text(path, root["description"], "description");
      if (root["seeds"] && root["seeds"].IsSequence()) {
        e.seeds.clear();
        for (const auto& v : root["seeds"])
          e.seeds.push_back(static_cast<uint64_t>(yaml::integer(path, v, "seeds", 0, 9000000000000000L)));
      }
      if (root["policies"] && root["policies"].IsSequence())
        for (const auto& p : root["policies"]) e.policies.push_back(text(path, p, "policies"));
      return e;
    }
  }
  check_keys(path, root, {"experiment",      "engine",         "description",        "cluster",
                          "seeds",           "policies",       "policy_params",      "speed_model",
                          "speed_table",     "round_s",        "restart_delay_s",    "charge_first_start",
                          "measure_noise",   "straggler_prob", "straggler_slowdown", "scale_cost_worker_s",
                          "scale_cost_ps_s", "max_time_s",     "interference",       "interference_file",
                          "workload"});
  Experiment e;
  e.path = path;
  e.name = text(path, root["experiment"], "experiment");
  if (root["description"]) e.description = text(path, root["description"], "description");
  if (!root["cluster"]) throw Error(path, 1, "cluster", "missing field");
  e.cluster = text(path, root["cluster"], "cluster");
  // A relative cluster file is relative to the experiment file.
  if (e.cluster.find('/') != std::string::npos || e.cluster.ends_with(".yaml") || e.cluster.ends_with(".json")) {
    const fs::path p(e.cluster);
    if (p.is_relative()) e.cluster = (fs::path(path).parent_path() / p).string();
  }
  if (root["seeds"]) {
    const YAML::Node s = root["seeds"];
    if (!s.IsSequence() || s.size() == 0) throw Error(path, line_of(s), "seeds", "expected a non-empty list");
    e.seeds.clear();
    for (const auto& v : s)
      e.seeds.push_back(static_cast<uint64_t>(yaml::integer(path, v, "seeds", 0, 9000000000000000L)));
  }
  if (!root["policies"] || !root["policies"].IsSequence() || root["policies"].size() == 0)
    throw Error(path, root["policies"] ? line_of(root["policies"]) : 1, "policies", "expected a non-empty list");
  for (const auto& p : root["policies"]) e.policies.push_back(text(path, p, "policies"));
  if (root["policy_params"]) {
    const YAML::Node pp = root["policy_params"];
    if (!pp.IsMap()) throw Error(path, line_of(pp), "policy_params", "expected a mapping");
    for (const auto& kv : pp)
      e.policy_params[text(path, kv.first, "policy_params")] = text(path, kv.second, kv.first.Scalar());
  }
  if (root["speed_model"]) e.speed_model = text(path, root["speed_model"], "speed_model");
  if (e.speed_model != "table" && e.speed_model != "table-dl2" && e.speed_model != "formula" &&
      e.speed_model != "analytic")
    throw Error(path, line_of(root["speed_model"]), "speed_model", "expected table, table-dl2, formula or analytic");
  if (root["speed_table"]) {
    e.speed_table = text(path, root["speed_table"], "speed_table");
    const fs::path p(e.speed_table);
    if (p.is_relative()) e.speed_table = (fs::path(path).parent_path() / p).string();
  }
  if (root["round_s"]) e.round_s = number(path, root["round_s"], "round_s", 1e-3, 1e9);
  if (root["restart_delay_s"]) e.restart_delay_s = number(path, root["restart_delay_s"], "restart_delay_s", 0, 1e9);
  if (root["charge_first_start"])
    e.charge_first_start = yaml::boolean(path, root["charge_first_start"], "charge_first_start");
  if (root["measure_noise"]) e.measure_noise = number(path, root["measure_noise"], "measure_noise", 0, 1);
  if (root["straggler_prob"]) e.straggler_prob = number(path, root["straggler_prob"], "straggler_prob", 0, 1);
  if (root["straggler_slowdown"]) {
    const YAML::Node s = root["straggler_slowdown"];
    if (!s.IsSequence() || s.size() != 2) throw Error(path, line_of(s), "straggler_slowdown", "expected [min, max]");
    e.straggler_min = number(path, s[0], "straggler_slowdown", 1, 1e6);
    e.straggler_max = number(path, s[1], "straggler_slowdown", e.straggler_min, 1e6);
  }
  if (root["scale_cost_worker_s"])
    e.scale_cost_worker_s = number(path, root["scale_cost_worker_s"], "scale_cost_worker_s", 0, 1e9);
  if (root["scale_cost_ps_s"]) e.scale_cost_ps_s = number(path, root["scale_cost_ps_s"], "scale_cost_ps_s", 0, 1e9);
  if (root["max_time_s"]) e.max_time_s = number(path, root["max_time_s"], "max_time_s", 1, 1e15);
  if (root["interference"]) {
    e.interference = text(path, root["interference"], "interference");
    if (e.interference != "none" && e.interference != "contention" && e.interference != "gavel")
      throw Error(path, line_of(root["interference"]), "interference",
                  "expected one of " + std::string(kInterferenceModels) + ", got '" + e.interference + "'");
  }
  if (root["interference_file"]) {
    e.interference_file = text(path, root["interference_file"], "interference_file");
    const fs::path p(e.interference_file);
    if (p.is_relative()) e.interference_file = (fs::path(path).parent_path() / p).string();
  }
  if (!root["workload"]) throw Error(path, 1, "workload", "missing field");
  e.workload = parse_workload(path, root["workload"]);
  return e;
}

}  // namespace

std::string default_experiments_dir() {
  if (const char* env = std::getenv("DMLKIT_EXPERIMENTS_DIR"); env != nullptr && *env != '\0') return env;
  return (fs::path(default_data_dir()).parent_path() / "experiments").string();
}

std::vector<Experiment> list_experiments(const std::string& dir) {
  std::vector<Experiment> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir, 0, "", "experiments folder not found");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    YAML::Node root;
    try {
      root = yaml::load_file(f);
    } catch (const Error&) {
      continue;  // not ours to judge: only experiment files are listed
    }
    if (root.IsMap() && root["experiment"]) out.push_back(parse(f));
  }
  std::sort(out.begin(), out.end(), [](const Experiment& a, const Experiment& b) { return a.name < b.name; });
  return out;
}

Experiment load_experiment(const std::string& name_or_path, const std::string& dir) {
  std::error_code ec;
  const fs::path named = fs::path(dir) / (name_or_path + ".yaml");
  if (name_or_path.find('/') == std::string::npos && fs::is_regular_file(named, ec)) return parse(named.string());
  if (fs::is_regular_file(name_or_path, ec)) return parse(name_or_path);
  std::string known;
  if (fs::is_directory(dir, ec))
    for (const auto& e : list_experiments(dir)) known += (known.empty() ? "" : ", ") + e.name;
  throw Error("unknown experiment '" + name_or_path + "' (known: " + (known.empty() ? "none" : known) + ")");
}

SimConfig experiment_sim_config(const Experiment& e, const std::string& data_dir) {
  SimConfig config;
  config.round_s = e.round_s;
  config.restart_delay_s = e.restart_delay_s;
  config.charge_first_start = e.charge_first_start;
  config.schedule_on_events = false;  // time-slotted: freed resources wait for the next slot
  config.data_dir = data_dir;
  config.max_time_s = e.max_time_s;
  const bool table = e.speed_model == "table" || e.speed_model == "table-dl2";
  config.ps_speed = (table && !e.speed_table.empty())
                        ? std::make_shared<TableSpeedModel>(e.speed_table, e.speed_model == "table-dl2")
                        : make_ps_speed_model(e.speed_model, data_dir);
  config.ps_measure_noise = e.measure_noise;
  config.ps_straggler_prob = e.straggler_prob;
  config.ps_straggler_min = e.straggler_min;
  config.ps_straggler_max = e.straggler_max;
  config.ps_scale_cost_worker_s = e.scale_cost_worker_s;
  config.ps_scale_cost_ps_s = e.scale_cost_ps_s;
  config.interference = make_interference_model(e.interference, data_dir, e.interference_file);
  return config;
}

std::vector<ExperimentRun> run_experiment(const Experiment& e, const std::string& data_dir,
                                          const std::function<void(const std::string&, uint64_t)>& on_run,
                                          int threads) {
  if (e.engine != "sim")
    throw Error(
        e.path, 0, "engine",
        "experiment '" + e.name + "' runs on the " + e.engine + " engine: use `dmlkit cluster compare --experiment`");
  PolicyOptions popts;
  popts.params = e.policy_params;
  popts.experiment = e.name;
  popts.interference = e.interference;
  std::vector<std::unique_ptr<Policy>> check;
  for (const auto& p : e.policies) check.push_back(make_policy(p, popts));  // names first
  const ClusterSpec cluster = ClusterSpec::parse(e.cluster);
  const SimConfig config = experiment_sim_config(e, data_dir);
  // Every workload first (one per seed), then the runs: run i is (seed i / P, policy i % P), each
  // with its own policy object (made in its thread) and result slot (cluster/sim/runner.h).
  std::vector<Workload> workloads;
  for (uint64_t seed : e.seeds) workloads.push_back(ps_workload(e.workload, seed, data_dir));
  const size_t P = e.policies.size();
  std::vector<SimTask> tasks(e.seeds.size() * P);
  for (size_t i = 0; i < tasks.size(); ++i) {
    SimTask& t = tasks[i];
    t.policy_name = e.policies[i % P];
    t.options = popts;
    t.options.seed = e.seeds[i / P];
    t.cluster = &cluster;
    t.workload = &workloads[i / P];
    t.config = &config;
  }
  SimProgress progress;
  if (on_run) progress.on_start = [&](size_t i) { on_run(tasks[i].policy_name, tasks[i].options.seed); };
  std::vector<SimRun> sims = run_simulations(tasks, threads, progress);
  std::vector<ExperimentRun> runs(tasks.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].policy = tasks[i].policy_name;
    runs[i].seed = tasks[i].options.seed;
    runs[i].result = std::move(sims[i].result);
    runs[i].metrics = std::move(sims[i].metrics);
  }
  return runs;
}

}  // namespace dmlkit::cluster
