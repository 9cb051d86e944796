// The options of `cluster simulate` and `cluster compare`, the spec they fill, and what is printed
// and written of the run (cluster/run.h).
#include "dmlkit/cluster/cluster_run.h"

#include <algorithm>
#include <memory>
#include <ostream>

#include "core/data_dir.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/table.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/python_plugin.h"
#include "dmlkit/run_output.h"
#include "dmlkit/trace_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

void add_cluster_run_options(CLI::App& cmd, ClusterCliOptions& o) {
  cmd.add_option("--workload", o.spec.workload,
                 "Workload: bundled name (pollux-1..8, pollux-0.5-1..8, philly, tiresias-60, synthetic) or a CSV "
                 "file (Pollux-style, Philly or Tiresias-simulator format, recognised by its header)")
      ->capture_default_str();
  cmd.add_option("--cluster", o.spec.cluster, "Cluster: NxG shorthand (16x4), a YAML/JSON file, or alibaba-2023")
      ->capture_default_str();
  cmd.add_option("--profile", o.spec.profile,
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
  cmd.add_option("--policy-param", o.spec.policy_params, "Policy knob key=value (repeatable), e.g. tiresias.queues=2");
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
  cmd.add_flag("--free-first-start", o.spec.free_first_start,
               "Do not charge the restart delay on a job's first start (the Pollux reference charges it)");
  cmd.add_option("--extra-server-slowdown", o.spec.extra_server_slowdown,
                 "Trace jobs: fractional slowdown per server used beyond the fewest needed (0 = off)")
      ->capture_default_str();
  cmd.add_option("--interference", o.spec.interference,
                 "Co-location interference of parameter-server jobs: none, contention (usage profiles of "
                 "data/harmony/contention.yaml) or gavel (Gavel's measured pairs); docs/harmony.md")
      ->check(CLI::IsMember({"none", "contention", "gavel"}))
      ->capture_default_str();
  cmd.add_option("--interference-file", o.spec.interference_file,
                 "Data file of the --interference model (default: data/harmony/contention.yaml or gavel-mapping.yaml)");
  cmd.add_flag("--drop-oversized", o.spec.drop_oversized,
               "Drop (and count) jobs needing more GPUs than the cluster has, instead of failing");
  cmd.add_option("--window-start", o.spec.window_start_s, "Philly trace: first second of the window to replay")
      ->check(at_least(0));
  cmd.add_option("--window-end", o.spec.window_end_s, "Philly trace: end of the window (seconds; default: all)")
      ->check(at_least(0));
  cmd.add_option("--vc", o.spec.virtual_clusters, "Philly trace: keep only these virtual clusters")->delimiter(',');
  cmd.add_option("--synthetic-jobs", o.spec.synthetic_jobs, "Number of jobs of the synthetic workload")
      ->capture_default_str();
  cmd.add_option("--jobs", o.spec.max_jobs, "Simulate only the first N jobs by arrival (0 = all)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--calibration", o.spec.calibration,
                 "Sim-to-real calibration file (calibration.json of `cluster replay --slurm`): adds the measured "
                 "arrival, start and restart latencies of the real cluster");
  cmd.add_option("--calibration-time-scale", o.spec.calibration_time_scale,
                 "Wall seconds per model second to convert the calibration's wall-second latencies with (0: the "
                 "measured run's own)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--calibration-statistic", o.spec.calibration_statistic,
                 "Which statistic of the calibration's samples to apply: mean or median")
      ->capture_default_str();
  cmd.add_option("--seed", o.spec.seed, "Random seed (results are identical for the same seed)")->capture_default_str();
  add_output_options(cmd, o.out, o.format);
  o.spec.data_dir = dmlkit::default_data_dir();
  cmd.add_option("--data-dir", o.spec.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
}

cl::RunSpec cluster_run_spec(const ClusterCliOptions& o) {
  cl::RunSpec spec = o.spec;
  if (o.placement_given) spec.placement = o.placement;
  if (o.round_given) spec.round_s = o.round_s;
  if (o.restart_delay_given) spec.restart_delay_s = o.restart_delay_s;
  spec.event_replan = !o.no_event_replan;
  spec.record_placements = !o.trace.empty();
  return spec;
}

namespace {

// What only the command line checks (before the spec's own check): --trace beside --out.
void check_cli(const ClusterCliOptions& o) { check_trace_target(o.trace, o.out); }

// Serial: a bar per policy (jobs finished); parallel: one bar for all, jobs finished summed over
// the policies. Display only.
struct ClusterRunBars {
  std::vector<std::string> policies;
  size_t jobs = 0;
  bool serial = true;
  std::unique_ptr<ProgressBar> bar;
  std::vector<size_t> finished;
  size_t done = 0;

  cl::RunProgress progress() {
    cl::RunProgress p;
    p.on_begin = [this](const std::string&, size_t runs, size_t n) {
      jobs = n;
      finished.assign(runs, 0);
      if (!serial)
        bar = std::make_unique<ProgressBar>(std::to_string(runs) + " policies", static_cast<double>(n * runs));
    };
    p.on_start = [this](size_t i, const std::string&) {
      if (serial) bar = std::make_unique<ProgressBar>(policies[i], static_cast<double>(jobs));
    };
    p.on_jobs = [this](size_t i, double now_s, size_t n) {
      if (serial) {
        bar->update(static_cast<double>(n), "t=" + fixed(now_s / 3600.0, 1) + " h");
        return;
      }
      finished[i] = n;
      redraw();
    };
    p.on_done = [this](size_t i) {
      if (serial) {
        bar->update(static_cast<double>(jobs));
        bar->finish();
        return;
      }
      finished[i] = jobs;
      ++done;
      redraw();
    };
    return p;
  }
  void redraw() {
    double sum = 0;
    for (auto f : finished) sum += static_cast<double>(f);
    bar->update(sum, std::to_string(done) + "/" + std::to_string(finished.size()) + " done");
  }
};

}  // namespace

void validate_cluster_run(const ClusterCliOptions& o) {
  check_cli(o);
  cl::check(cluster_run_spec(o));
}

int run_cluster_policies(const ClusterCliOptions& o, Context& ctx) {
  check_cli(o);
  const cl::RunSpec spec = cluster_run_spec(o);
  ClusterRunBars bars;
  bars.policies = spec.policies;
  bars.serial = std::min<int>(resolve_threads(spec.threads), static_cast<int>(spec.policies.size())) <= 1;
  const cl::RunOutput run = cl::run(spec, bars.progress());
  if (bars.bar) bars.bar->finish();
  OutputDir out(o.out);
  run.write(out);
  const std::string path = commit_output(out);
  ctx.out << run.summary(o.format);
  print_output_location(ctx, o.format, path);
  if (!o.trace.empty()) write_trace(ctx, o.format, o.trace, run.trace());
  return 0;
}

}  // namespace dmlkit::app
