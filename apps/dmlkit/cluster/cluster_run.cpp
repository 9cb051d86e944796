#include "dmlkit/folder_help.h"
#include "dmlkit/run_output.h"
#include "dmlkit/trace_output.h"
#include "dmlkit/cluster/cluster_run.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <ostream>

#include "cluster/speed/interference.h"
#include "cluster/model/cluster_spec.h"
#include "core/data_dir.h"
#include "cluster/sim/metrics.h"
#include "cluster/policy.h"
#include "cluster/report/trace.h"
#include "cluster/sim/calibration.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"
#include "core/knob_use.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/table.h"
#include "dmlkit/cluster/cluster_output.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/python_plugin.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

void add_cluster_run_options(CLI::App& cmd, ClusterRunOptions& o) {
  cmd.add_option("--workload", o.workload,
                 "Workload: bundled name (pollux-1..8, pollux-0.5-1..8, philly, tiresias-60, synthetic) or a CSV "
                 "file (Pollux-style, Philly or Tiresias-simulator format, recognised by its header)")
      ->capture_default_str();
  cmd.add_option("--cluster", o.cluster, "Cluster: NxG shorthand (16x4), a YAML/JSON file, or alibaba-2023")
      ->capture_default_str();
  cmd.add_option("--profile", o.profile,
                 "Simulation semantics: default (event-driven), pollux (the Pollux reference simulator's) or "
                 "tiresias-sim (the Tiresias authors' simulator's: no rounds, no restart cost, their policy "
                 "defaults; --round, --restart-delay and --placement still override)")
      ->check(CLI::IsMember({"default", "pollux", "tiresias-sim"}))
      ->capture_default_str();
  cmd.add_option("--placement", o.placement,
                 "Placement for policies that place GPU counts: "
                 "consolidate, spread, first-fit, most-free (tiresias-sim profile: first-fit)")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.placement_given = true; });
  cmd.add_option("--policy-param", o.policy_params, "Policy knob key=value (repeatable), e.g. tiresias.queues=2");
  cmd.add_option("--policy-file", o.policy_files, kPolicyFileHelp);
  cmd.add_option("--round", o.round_s, "Scheduling round length in seconds (tiresias-sim profile: no rounds)")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.round_given = true; });
  cmd.add_option("--restart-delay", o.restart_delay_s,
                 "Seconds a job loses when its placement changes (tiresias-sim profile: 0)")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.restart_delay_given = true; });
  cmd.add_flag("--no-event-replan", o.no_event_replan,
               "Default profile: re-plan only at round boundaries, not at arrivals and completions");
  cmd.add_flag("--free-first-start", o.free_first_start,
               "Do not charge the restart delay on a job's first start (the Pollux reference charges it)");
  cmd.add_option("--extra-server-slowdown", o.extra_server_slowdown,
                 "Trace jobs: fractional slowdown per server used beyond the fewest needed (0 = off)")
      ->capture_default_str();
  cmd.add_option("--interference", o.interference,
                 "Co-location interference of parameter-server jobs: none, contention (usage profiles of "
                 "data/harmony/contention.yaml) or gavel (Gavel's measured pairs); docs/harmony.md")
      ->check(CLI::IsMember({"none", "contention", "gavel"}))
      ->capture_default_str();
  cmd.add_option("--interference-file", o.interference_file,
                 "Data file of the --interference model (default: data/harmony/contention.yaml or gavel-mapping.yaml)");
  cmd.add_flag("--drop-oversized", o.drop_oversized,
               "Drop (and count) jobs needing more GPUs than the cluster has, instead of failing");
  cmd.add_option("--window-start", o.window_start_s, "Philly trace: first second of the window to replay")
      ->check(at_least(0));
  cmd.add_option("--window-end", o.window_end_s, "Philly trace: end of the window (seconds; default: all)")
      ->check(at_least(0));
  cmd.add_option("--vc", o.virtual_clusters, "Philly trace: keep only these virtual clusters")->delimiter(',');
  cmd.add_option("--synthetic-jobs", o.synthetic_jobs, "Number of jobs of the synthetic workload")
      ->capture_default_str();
  cmd.add_option("--jobs", o.max_jobs, "Simulate only the first N jobs by arrival (0 = all)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--calibration", o.calibration,
                 "Sim-to-real calibration file (calibration.json of `cluster replay --slurm`): adds the measured "
                 "arrival, start and restart latencies of the real cluster");
  cmd.add_option("--calibration-time-scale", o.calibration_time_scale,
                 "Wall seconds per model second to convert the calibration's wall-second latencies with (0: the "
                 "measured run's own)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--calibration-statistic", o.calibration_statistic,
                 "Which statistic of the calibration's samples to apply: mean or median")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "Random seed (results are identical for the same seed)")->capture_default_str();
  add_output_options(cmd, o.out, o.format);
  o.data_dir = dmlkit::default_data_dir();
  cmd.add_option("--data-dir", o.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
}

namespace {

void check_options(const ClusterRunOptions& o) {
  if (o.policies.empty()) throw Error("--policies: no policy given");
  check_trace_target(o.trace, o.out);
  if (!(o.round_s > 0)) throw Error("--round: must be positive, got " + std::to_string(o.round_s));
  if (!(o.restart_delay_s >= 0)) throw Error("--restart-delay: must not be negative");
  if (!(o.extra_server_slowdown >= 0)) throw Error("--extra-server-slowdown: must not be negative");
  if (o.synthetic_jobs < 1) throw Error("--synthetic-jobs: must be at least 1");
  if (o.window_end_s >= 0 && !(o.window_end_s > o.window_start_s))
    throw Error("--window-end: must be after --window-start");
  for (size_t i = 0; i < o.policies.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (o.policies[i] == o.policies[k]) throw Error("--policies: '" + o.policies[i] + "' given twice");
}

cl::PolicyOptions policy_options(const ClusterRunOptions& o) {
  cl::PolicyOptions p;
  p.profile = o.profile;
  p.placement = o.placement_given ? cl::parse_placement_kind(o.placement) : cl::profile_defaults(o.profile).placement;
  p.seed = o.seed;
  p.interference = o.interference;
  cl::add_policy_params(p.params, o.policy_params);
  return p;
}

cl::Workload load(const ClusterRunOptions& o, const cl::ClusterSpec& cluster) {
  if (o.workload == "synthetic") {
    cl::SyntheticSpec spec;
    spec.num_jobs = o.synthetic_jobs;
    cl::Workload w = cl::synthetic_workload(spec, o.seed);
    for (const auto& j : w.jobs)
      if (j.num_gpus > cluster.total_gpus())
        throw Error("synthetic workload: a job needs " + std::to_string(j.num_gpus) + " GPUs, the cluster has " +
                    std::to_string(cluster.total_gpus()));
    return w;
  }
  cl::WorkloadOptions wo;
  wo.data_dir = o.data_dir;
  wo.window_start_s = o.window_start_s;
  wo.window_end_s = o.window_end_s;
  wo.virtual_clusters = o.virtual_clusters;
  wo.cluster_gpus = cluster.total_gpus();
  wo.drop_oversized = o.drop_oversized;
  cl::Workload w = cl::load_workload(o.workload, wo);
  if (o.max_jobs > 0 && static_cast<size_t>(o.max_jobs) < w.jobs.size()) {
    std::stable_sort(w.jobs.begin(), w.jobs.end(),
                     [](const cl::Job& a, const cl::Job& b) { return a.arrival_s < b.arrival_s; });
    w.jobs.resize(static_cast<size_t>(o.max_jobs));
    for (size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = static_cast<int>(i);
  }
  return w;
}

}  // namespace

void validate_cluster_run(const ClusterRunOptions& o) {
  check_options(o);
  const cl::PolicyOptions popts = policy_options(o);
  cl::check_policy_params(o.policies, popts.params);
  for (const auto& name : o.policies) (void)cl::make_policy(name, popts);
  const cl::ClusterSpec cluster = cl::ClusterSpec::parse(o.cluster);
  if (cluster.total_gpus() <= 0) throw Error(o.cluster + ": the cluster has no GPUs");
  if (o.workload != "synthetic") (void)cl::resolve_workload_path(o.workload, o.data_dir);
  (void)cl::make_interference_model(o.interference, o.data_dir, o.interference_file);
  if (cl::parse_calibration_statistic(o.calibration_statistic) == cl::CalibrationStatistic::Sample)
    throw Error(
        "--calibration-statistic: 'sample' (a draw per event) applies to `cluster replay --fake`; the "
        "simulator adds one constant per start: mean or median");
  if (!o.calibration.empty()) (void)cl::read_calibration(o.calibration);
  if (o.calibration_time_scale != 0) cl::check_time_scale(o.calibration_time_scale, "--calibration-time-scale");
}

int run_cluster_policies(const ClusterRunOptions& o, Context& ctx) {
  check_options(o);
  // Validate everything (names, files, knobs) before the first simulation starts.
  const cl::PolicyOptions popts = policy_options(o);
  cl::check_policy_params(o.policies, popts.params);
  std::vector<std::unique_ptr<cl::Policy>> policies;
  // Every knob of the policies as used (issue 20): given, else the declared default, overridden by
  // what the factories actually read (run-dependent defaults such as the profile's).
  KnobValues effective;
  {
    KnobUseRecorder used;
    for (const auto& name : o.policies) policies.push_back(cl::make_policy(name, popts));
    effective = effective_knobs(cl::policy_registry(), o.policies, popts.params, used.values());
  }
  const cl::ClusterSpec cluster = cl::ClusterSpec::parse(o.cluster);
  if (cluster.total_gpus() <= 0) throw Error(o.cluster + ": the cluster has no GPUs");
  if (cl::parse_calibration_statistic(o.calibration_statistic) == cl::CalibrationStatistic::Sample)
    throw Error(
        "--calibration-statistic: 'sample' (a draw per event) applies to `cluster replay --fake`; the "
        "simulator adds one constant per start: mean or median");
  const cl::CalibrationStatistic statistic = cl::parse_calibration_statistic(o.calibration_statistic);
  const cl::Calibration calibration =
      o.calibration.empty() ? cl::Calibration{} : cl::read_calibration(o.calibration);  // bad file: exit 2 first
  if (o.calibration_time_scale != 0) cl::check_time_scale(o.calibration_time_scale, "--calibration-time-scale");
  const cl::Workload workload = load(o, cluster);
  if (workload.jobs.empty()) throw Error(workload.path + ": the workload has no jobs");

  // The profile's defaults, then what the user gave.
  cl::SimConfig config = cl::profile_defaults(o.profile).config;
  if (o.round_given) config.round_s = o.round_s;
  if (o.restart_delay_given) config.restart_delay_s = o.restart_delay_s;
  if (o.free_first_start) config.charge_first_start = false;
  config.schedule_on_events = !o.no_event_replan;
  config.extra_server_slowdown = o.extra_server_slowdown;
  config.data_dir = o.data_dir;
  config.interference = cl::make_interference_model(o.interference, o.data_dir, o.interference_file);
  config.record_placements = !o.trace.empty();
  if (!o.calibration.empty()) cl::apply_calibration(config, calibration, o.calibration_time_scale, statistic);

  RunDescription desc;
  desc.command = o.command;
  desc.workload = workload.name;
  desc.workload_path = workload.path;
  desc.cluster = o.cluster;
  desc.cluster_gpus = cluster.total_gpus();
  desc.cluster_servers = cluster.num_servers();
  desc.profile = o.profile;
  desc.placement = cl::placement_kind_name(popts.placement);
  desc.policy_params = popts.params;
  desc.effective_knobs = effective;
  desc.seed = o.seed;
  desc.round_s = config.round_s;  // +inf (JSON null): no rounds
  desc.restart_delay_s = config.restart_delay_s;
  desc.jobs = workload.jobs.size();
  desc.dropped_oversized = workload.dropped_oversized;
  desc.interference = o.interference;
  desc.interference_file = o.interference_file;
  desc.calibration = o.calibration;
  desc.arrival_latency_s = config.arrival_latency_s;
  desc.start_latency_s = config.start_latency_s;
  desc.restart_latency_s = config.restart_latency_s;

  std::vector<cl::SimResult> results(policies.size());
  const int threads = std::min<int>(resolve_threads(o.threads), static_cast<int>(policies.size()));
  const double jobs = static_cast<double>(workload.jobs.size());
  if (threads <= 1) {
    for (size_t i = 0; i < policies.size(); ++i) {
      ProgressBar bar(o.policies[i], jobs);
      config.on_progress = [&bar](double now_s, size_t finished, size_t) {
        bar.update(static_cast<double>(finished), "t=" + fixed(now_s / 3600.0, 1) + " h");
      };
      results[i] = cl::simulate(cluster, workload, o.policies[i], *policies[i], config);
      bar.update(jobs);
      bar.finish();
    }
  } else {
    // Policies in parallel, each into its own slot (same results as serial). One bar for all:
    // jobs finished summed over the policies; a thread that finds the bar busy skips the redraw.
    ProgressBar bar(std::to_string(policies.size()) + " policies", jobs * static_cast<double>(policies.size()));
    std::vector<std::atomic<size_t>> finished(policies.size());
    std::atomic<int> done{0};
    std::mutex bar_mutex;
    auto redraw = [&](bool wait) {
      std::unique_lock<std::mutex> lock(bar_mutex, std::defer_lock);
      if (wait)
        lock.lock();
      else if (!lock.try_lock())
        return;
      double sum = 0;
      for (const auto& f : finished) sum += static_cast<double>(f.load());
      bar.update(sum, std::to_string(done.load()) + "/" + std::to_string(policies.size()) + " done");
    };
    parallel_for(policies.size(), threads, [&](size_t i) {
      cl::SimConfig c = config;
      c.on_progress = [&, i](double, size_t n, size_t) {
        finished[i] = n;
        redraw(false);
      };
      results[i] = cl::simulate(cluster, workload, o.policies[i], *policies[i], c);
      finished[i] = workload.jobs.size();
      ++done;
      redraw(true);
    });
    bar.finish();
  }
  std::vector<cl::Metrics> metrics;
  for (const auto& r : results) metrics.push_back(cl::compute_metrics(r));

  const Results res = cluster_results(desc, results, metrics);
  OutputDir out(o.out);
  write_cluster_outputs(out, desc, res, results, metrics);
  const std::string path = commit_output(out);

  ctx.out << render_cluster_summary(desc, res, results, metrics, o.format);
  print_output_location(ctx, o.format, path);
  if (!o.trace.empty()) {
    TraceEvents trace;
    for (const auto& r : results) cl::add_placement_trace(trace, r, cluster);
    write_trace(ctx, o.format, o.trace, trace);
  }
  return 0;
}

}  // namespace dmlkit::app
