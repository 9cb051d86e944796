// A run of policies on one workload (cluster/run.h): the checks, the workload and settings, the
// simulations through the one runner (cluster/sim/runner.h), and the results.
#include "cluster/run.h"

#include <algorithm>
#include <memory>

#include "cluster/policy.h"
#include "cluster/report/report.h"
#include "cluster/report/results.h"
#include "cluster/report/trace.h"
#include "cluster/sim/calibration.h"
#include "cluster/sim/runner.h"
#include "cluster/speed/interference.h"
#include "cluster/workload/workload.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/knob_use.h"
#include "core/parallel_for.h"

namespace dmlkit::cluster {

namespace {

// `value` is one of `names`, else Error naming the flag.
void check_member(const std::string& flag, const std::string& value, const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), value) != names.end()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw Error(flag + ": '" + value + "' is not one of " + list);
}

void check_fields(const RunSpec& s) {
  if (s.policies.empty()) throw Error("--policies: no policy given");
  check_member("--profile", s.profile, {"default", "pollux", "tiresias-sim"});
  check_member("--interference", s.interference, {"none", "contention", "gavel"});
  if (!(s.window_start_s >= 0)) throw Error("--window-start: must not be negative");
  if (s.max_jobs < 0) throw Error("--jobs: must not be negative");
  if (s.threads < 0) throw Error("--threads: must not be negative");
  if (!(s.calibration_time_scale >= 0)) throw Error("--calibration-time-scale: must not be negative");
  if (s.round_s && !(*s.round_s > 0)) throw Error("--round: must be positive, got " + std::to_string(*s.round_s));
  if (s.restart_delay_s && !(*s.restart_delay_s >= 0)) throw Error("--restart-delay: must not be negative");
  if (!(s.extra_server_slowdown >= 0)) throw Error("--extra-server-slowdown: must not be negative");
  if (s.synthetic_jobs < 1) throw Error("--synthetic-jobs: must be at least 1");
  if (s.window_end_s >= 0 && !(s.window_end_s > s.window_start_s))
    throw Error("--window-end: must be after --window-start");
  for (size_t i = 0; i < s.policies.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (s.policies[i] == s.policies[k]) throw Error("--policies: '" + s.policies[i] + "' given twice");
}

std::string data_dir_of(const RunSpec& s) { return s.data_dir.empty() ? default_data_dir() : s.data_dir; }

PolicyOptions policy_options(const RunSpec& s) {
  PolicyOptions p;
  p.profile = s.profile;
  p.placement = s.placement ? parse_placement_kind(*s.placement) : profile_defaults(s.profile).placement;
  p.seed = s.seed;
  p.interference = s.interference;
  add_policy_params(p.params, s.policy_params);
  return p;
}

// What check() validates and run() then uses: everything but the workload.
struct Prepared {
  PolicyOptions options;
  std::vector<std::unique_ptr<Policy>> policies;
  // Every knob of the policies as used (issue 20): given, else the declared default, overridden by
  // what the factories actually read (run-dependent defaults such as the profile's).
  KnobValues effective_knobs;
  ClusterSpec cluster;
  std::shared_ptr<const InterferenceModel> interference;
  Calibration calibration;
  CalibrationStatistic statistic = CalibrationStatistic::Mean;
};

Prepared prepare(const RunSpec& s) {
  check_fields(s);
  Prepared p;
  p.options = policy_options(s);
  check_policy_params(s.policies, p.options.params);
  {
    KnobUseRecorder used;
    for (const auto& name : s.policies) p.policies.push_back(make_policy(name, p.options));
    p.effective_knobs = effective_knobs(policy_registry(), s.policies, p.options.params, used.values());
  }
  p.cluster = ClusterSpec::parse(s.cluster);
  if (p.cluster.total_gpus() <= 0) throw Error(s.cluster + ": the cluster has no GPUs");
  const std::string data_dir = data_dir_of(s);
  if (s.workload != "synthetic") (void)resolve_workload_path(s.workload, data_dir);
  p.interference = make_interference_model(s.interference, data_dir, s.interference_file);
  p.statistic = parse_calibration_statistic(s.calibration_statistic);
  if (p.statistic == CalibrationStatistic::Sample)
    throw Error(
        "--calibration-statistic: 'sample' (a draw per event) applies to `cluster replay --fake`; the "
        "simulator adds one constant per start: mean or median");
  if (!s.calibration.empty()) p.calibration = read_calibration(s.calibration);
  if (s.calibration_time_scale != 0) check_time_scale(s.calibration_time_scale, "--calibration-time-scale");
  return p;
}

Workload load(const RunSpec& s, const ClusterSpec& cluster) {
  if (s.workload == "synthetic") {
    SyntheticSpec spec;
    spec.num_jobs = s.synthetic_jobs;
    Workload w = synthetic_workload(spec, s.seed);
    for (const auto& j : w.jobs)
      if (j.num_gpus > cluster.total_gpus())
        throw Error("synthetic workload: a job needs " + std::to_string(j.num_gpus) + " GPUs, the cluster has " +
                    std::to_string(cluster.total_gpus()));
    return w;
  }
  WorkloadOptions wo;
  wo.data_dir = data_dir_of(s);
  wo.window_start_s = s.window_start_s;
  wo.window_end_s = s.window_end_s;
  wo.virtual_clusters = s.virtual_clusters;
  wo.cluster_gpus = cluster.total_gpus();
  wo.drop_oversized = s.drop_oversized;
  Workload w = load_workload(s.workload, wo);
  if (s.max_jobs > 0 && static_cast<size_t>(s.max_jobs) < w.jobs.size()) {
    std::stable_sort(w.jobs.begin(), w.jobs.end(),
                     [](const Job& a, const Job& b) { return a.arrival_s < b.arrival_s; });
    w.jobs.resize(static_cast<size_t>(s.max_jobs));
    for (size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = static_cast<int>(i);
  }
  if (w.jobs.empty()) throw Error(w.path + ": the workload has no jobs");
  return w;
}

// The profile's defaults, then what the user gave.
SimConfig sim_config(const RunSpec& s, const Prepared& p) {
  SimConfig config = profile_defaults(s.profile).config;
  if (s.round_s) config.round_s = *s.round_s;
  if (s.restart_delay_s) config.restart_delay_s = *s.restart_delay_s;
  if (s.free_first_start) config.charge_first_start = false;
  config.schedule_on_events = s.event_replan;
  config.extra_server_slowdown = s.extra_server_slowdown;
  config.data_dir = data_dir_of(s);
  config.interference = p.interference;
  config.record_placements = s.record_placements;
  if (!s.calibration.empty()) apply_calibration(config, p.calibration, s.calibration_time_scale, p.statistic);
  return config;
}

RunDescription describe(const RunSpec& s, const Prepared& p, const Workload& workload, const SimConfig& config) {
  RunDescription d;
  d.command = s.command;
  d.workload = workload.name;
  d.workload_path = workload.path;
  d.cluster = s.cluster;
  d.cluster_gpus = p.cluster.total_gpus();
  d.cluster_servers = p.cluster.num_servers();
  d.profile = s.profile;
  d.placement = placement_kind_name(p.options.placement);
  d.policy_params = p.options.params;
  d.effective_knobs = p.effective_knobs;
  d.seed = s.seed;
  d.round_s = config.round_s;
  d.restart_delay_s = config.restart_delay_s;
  d.jobs = workload.jobs.size();
  d.dropped_oversized = workload.dropped_oversized;
  d.interference = s.interference;
  d.interference_file = s.interference_file;
  d.calibration = s.calibration;
  d.arrival_latency_s = config.arrival_latency_s;
  d.start_latency_s = config.start_latency_s;
  d.restart_latency_s = config.restart_latency_s;
  return d;
}

}  // namespace

void check(const RunSpec& spec) { (void)prepare(spec); }

RunOutput run(const RunSpec& spec, const RunProgress& progress) {
  Prepared p = prepare(spec);
  const Workload workload = load(spec, p.cluster);
  const SimConfig config = sim_config(spec, p);
  std::vector<SimTask> tasks(spec.policies.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].policy_name = spec.policies[i];
    tasks[i].policy = p.policies[i].get();
    tasks[i].cluster = &p.cluster;
    tasks[i].workload = &workload;
    tasks[i].config = &config;
  }
  if (progress.on_begin) progress.on_begin("", tasks.size(), workload.jobs.size());
  SimProgress sim_progress{nullptr, progress.on_jobs, progress.on_done};
  if (progress.on_start) sim_progress.on_start = [&](size_t i) { progress.on_start(i, spec.policies[i]); };
  std::vector<SimRun> sims = run_simulations(tasks, resolve_threads(spec.threads), sim_progress);
  RunOutput out;
  out.description = describe(spec, p, workload, config);
  out.cluster = p.cluster;
  for (auto& r : sims) {
    out.runs.push_back(std::move(r.result));
    out.metrics.push_back(r.metrics);
  }
  out.results = Results(spec.command, "policy");
  out.description.write_inputs(out.results);
  for (size_t i = 0; i < out.runs.size(); ++i) add_run_record(out.results, out.runs[i], out.metrics[i], spec.seed);
  return out;
}

}  // namespace dmlkit::cluster
