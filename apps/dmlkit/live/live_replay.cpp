// `dmlkit cluster replay --slurm --workload W --policy P --time-scale S`: replays a workload on a
// live Slurm cluster under a policy and compares measured JCTs with the simulator's prediction for
// the same policy, cluster and jobs (docs/live-mode.md). Writes results.json, records.csv,
// summary.csv (core/results.h), jobs.csv, rounds.csv, decisions.csv and report.html to --out.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/data_dir.h"
#include "cluster/model/placement.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/run_output.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/python_plugin.h"
#include "dmlkit/stop_signals.h"
#include "live/fake_slurm.h"
#include "live/replay.h"
#include "live/replay_stats.h"

namespace dmlkit::app {

namespace {

struct ReplayCliOptions {
  bool slurm = false;
  std::string fake;         // --fake NxG: the in-memory fake Slurm (virtual time), not a real cluster
  std::string calibration;  // --calibration FILE (with --fake)
  std::string calibration_statistic = "mean";  // --calibration-statistic
  std::string workload = "pollux-6";
  std::string policy = "tiresias";
  std::string slurm_conf;
  std::string placement = "consolidate";
  std::vector<std::string> policy_params;
  std::vector<std::string> policy_files;  // FILE.py:CLASS (python_plugin.h)
  bool policy_given = false;
  double time_scale = 0.01;
  double round_s = 60;
  double restart_delay_s = 30;
  double poll_s = 0.1;
  double start_timeout_s = 60;
  bool no_gres_repair = false;
  int max_retries = 0;
  std::string unexpressible = "wait";
  double max_wall_s = 0;
  int jobs = 0;
  uint64_t seed = 0;
  std::string out = "out/cluster-replay";
  std::string work_dir;
  std::string format = "table";
  std::string data_dir;
};

// Simulated against real JCT per job, one point each, with the line where they are equal.
LineChart jct_scatter(const live::ReplayResult& r) {
  LineChart c;
  c.title = "JCT per job: simulator (x) against Slurm (y)";
  c.x_title = "simulated JCT (s)";
  c.y_title = "real JCT on Slurm (s)";
  ChartSeries pts;
  pts.label = "jobs";
  pts.points_only = true;
  double hi = 0;
  for (const auto& j : r.jobs)
    if (j.sim_jct_s >= 0 && j.real_jct_s >= 0) {
      pts.x.push_back(j.sim_jct_s);
      pts.y.push_back(j.real_jct_s);
      hi = std::max({hi, j.sim_jct_s, j.real_jct_s});
    }
  ChartSeries diagonal;
  diagonal.label = "real = simulated";
  diagonal.x = {0, hi};
  diagonal.y = {0, hi};
  c.series = {pts, diagonal};
  c.x_min = 0;
  c.y_min = 0;
  return c;
}

// Step series of a quantity changed by (time, delta) events.
ChartSeries step_series(std::string label, std::vector<std::pair<double, int>> events) {
  std::sort(events.begin(), events.end());
  ChartSeries s;
  s.label = std::move(label);
  s.x = {0};
  s.y = {0};
  s.step = true;
  int level = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    level += events[i].second;
    if (i + 1 < events.size() && events[i + 1].first == events[i].first) continue;
    s.x.push_back(events[i].first);
    s.y.push_back(level);
  }
  return s;
}

// What the cluster did over time, in the simulator (its rounds) and on Slurm (each run of a job).
LineChart timeline(const live::ReplayResult& r, bool gpus) {
  LineChart c;
  c.title = gpus ? "GPUs busy over time: simulator vs Slurm" : "Running jobs over time: simulator vs Slurm";
  c.x_title = "time (model s)";
  c.y_title = gpus ? "GPUs busy" : "running jobs";
  c.y_integer = true;
  ChartSeries sim;
  sim.label = "simulator";
  sim.step = true;
  for (const auto& s : r.sim.rounds) {
    sim.x.push_back(s.time_s);
    sim.y.push_back(gpus ? s.gpus_busy : s.running_jobs);
  }
  std::vector<std::pair<double, int>> events;
  for (const auto& j : r.jobs)
    for (const auto& run : j.real_runs) {
      events.push_back({run.start_s, gpus ? run.gpus : 1});
      if (run.end_s >= 0) events.push_back({run.end_s, gpus ? -run.gpus : -1});
    }
  c.series = {sim, step_series("Slurm", std::move(events))};
  return c;
}
LineChart gpu_timeline(const live::ReplayResult& r) { return timeline(r, true); }
LineChart running_timeline(const live::ReplayResult& r) { return timeline(r, false); }

int run_replay_cli(ReplayCliOptions& o, Context& ctx) {
  if (!o.slurm && o.fake.empty())
    throw Error("--slurm: live mode needs a backend; Slurm is the only one (give --slurm, or --fake NxG)");
  if (o.slurm && !o.fake.empty()) throw Error("--fake: runs without Slurm; give --slurm or --fake, not both");
  int fake_nodes = 0, fake_gpus = 0;
  if (!o.fake.empty()) {
    const auto x = o.fake.find('x');
    try {
      size_t a = 0, b = 0;
      if (x == std::string::npos) throw std::invalid_argument("x");
      fake_nodes = std::stoi(o.fake.substr(0, x), &a);
      fake_gpus = std::stoi(o.fake.substr(x + 1), &b);
      if (a != x || b != o.fake.size() - x - 1) throw std::invalid_argument("trail");
    } catch (const std::exception&) {
      throw Error("--fake: expected NODESxGPUS (e.g. 8x4), got '" + o.fake + "'");
    }
    if (fake_nodes < 1 || fake_gpus < 1)
      throw Error("--fake: expected NODESxGPUS with both >= 1, got '" + o.fake + "'");
  }
  if (!o.calibration.empty() && o.fake.empty())
    throw Error("--calibration: applies to --fake (a real cluster has its own latencies)");
  const cluster::CalibrationStatistic statistic = cluster::parse_calibration_statistic(o.calibration_statistic);
  const cluster::Calibration given_calibration =
      o.calibration.empty() ? cluster::Calibration{} : cluster::read_calibration(o.calibration);
  if (!o.policy_files.empty()) {
    const auto names = register_python_policies(o.policy_files);
    if (!o.policy_given) {
      if (names.size() != 1) throw Error("--policy-file: `cluster replay` runs one policy; name it with --policy");
      o.policy = names.front();
    }
  }
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw Error("--format: expected table, json or csv, got '" + o.format + "'");
  if (o.jobs < 0) throw Error("--jobs: must not be negative");
  if (!(o.poll_s > 0)) throw Error("--poll: must be positive");
  if (!(o.restart_delay_s >= 0)) throw Error("--restart-delay: must not be negative");
  cluster::check_time_scale(o.time_scale, "--time-scale");
  live::ReplayOptions ro;
  ro.workload = o.workload;
  ro.policy = o.policy;
  ro.policy_options.placement = cluster::parse_placement_kind(o.placement);
  cluster::add_policy_params(ro.policy_options.params, o.policy_params);
  cluster::check_policy_params({o.policy}, ro.policy_options.params);  // the name and knobs, up front
  cluster::make_policy(o.policy, ro.policy_options);
  ro.max_jobs = o.jobs;
  ro.time_scale = o.time_scale;
  ro.round_s = o.round_s;
  ro.restart_delay_s = o.restart_delay_s;
  ro.poll_s = o.poll_s;
  ro.start_timeout_s = o.start_timeout_s;
  ro.unexpressible = live::parse_unexpressible(o.unexpressible);
  ro.repair_gres_leaks = !o.no_gres_repair;
  ro.max_retries = o.max_retries;
  ro.max_wall_s = o.max_wall_s;
  ro.data_dir = o.data_dir.empty() ? dmlkit::default_data_dir() : o.data_dir;
  ro.work_dir = o.work_dir.empty() ? o.out + ".work" : o.work_dir;
  ro.log = &ctx.err;
  const StopSignals signals;  // SIGINT/SIGTERM: stop, cancel every job submitted, write nothing
  ro.interrupted = [&signals] { return signals.requested(); };
  live::ReplayResult r;
  try {
    if (!o.fake.empty()) {
      // The controller alone: no daemons and no latencies (jobs start at the next tick of a virtual
      // clock), so the gap left is what the controller's decisions do (reshaping to uniform GPUs
      // per node, rounds and polls). Runs in seconds.
      live::FakeSlurm fake;
      fake.add_nodes(fake_nodes, fake_gpus);
      fake.set_done_file_jobs(true);
      if (!o.calibration.empty())
        fake.set_latencies(live::fake_latencies(given_calibration, statistic, o.poll_s, o.seed + 1));
      r = live::run_replay(fake, ro);
    } else {
      live::SlurmClientOptions so;
      so.slurm_conf = o.slurm_conf;
      live::SlurmClient slurm(so);
      r = live::run_replay(slurm, ro);
    }
  } catch (const live::SlurmError& e) {
    throw Error(std::string("Slurm: ") + e.what() + " (is the cluster up, and --slurm-conf / SLURM_CONF right?)");
  }
  if (r.interrupted) {
    ctx.err << "cluster replay: stopped by " << signals.signal_name() << "; cancelled " << r.cancelled
            << " unfinished job(s) it had submitted; no results written\n";
    return signals.exit_status();
  }

  // Tables.
  TextTable jobs({"job", "application", "gpus", "arrival_s", "slurm_id", "sim_jct_s", "real_jct_s", "gap_s",
                  "sim_preemptions", "real_starts"});
  const live::ReplayStats st = live::replay_stats(r);
  for (const auto& j : r.jobs) {
    const bool both = j.sim_jct_s >= 0 && j.real_jct_s >= 0;
    jobs.add_row({j.name, j.application.empty() ? "-" : j.application, std::to_string(j.num_gpus),
                  fixed(j.arrival_s, 1), std::to_string(j.slurm_id), j.sim_jct_s >= 0 ? fixed(j.sim_jct_s, 1) : "",
                  j.real_jct_s >= 0 ? fixed(j.real_jct_s, 1) : "", both ? fixed(j.gap_s(), 1) : "",
                  std::to_string(j.sim_preemptions), std::to_string(j.real_restarts)});
  }
  TextTable rounds({"t_s", "active_jobs", "actions", "slurm_commands", "decide_ms", "apply_ms"});
  for (const auto& s : r.rounds)
    rounds.add_row({fixed(s.model_time_s, 1), std::to_string(s.active_jobs), std::to_string(s.actions),
                    std::to_string(s.slurm_commands), fixed(s.decide_ms, 3), fixed(s.apply_ms, 1)});
  TextTable decisions({"t_s", "slurm_id", "job", "action", "placement", "note"});
  for (const auto& d : r.decisions)
    decisions.add_row(
        {fixed(d.model_time_s, 1), std::to_string(d.slurm_id), d.job_name, d.action, d.placement, d.note});

  const double gap = st.gap_avg_jct_s;
  const double gap_rel = st.gap_avg_jct_rel;
  // The averages and gaps are over the jobs finished in both runs: null (blank) when there are none,
  // never 0, which would read as a perfect prediction.
  const bool any_both = st.finished_in_both > 0;
  auto over_both = [any_both](double v) { return any_both ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
  auto both_cell = [any_both](double v, int digits) { return any_both ? fixed(v, digits) : std::string(); };
  Results res("cluster replay", "policy");
  res.inputs() = {{"backend", o.fake.empty() ? "slurm" : "fake " + o.fake},
                  {"calibration", o.calibration},
                  {"calibration_statistic", o.calibration.empty() ? "" : o.calibration_statistic},
                  {"workload", o.workload},
                  {"policy", o.policy},
                  {"placement", o.placement},
                  {"unexpressible", o.unexpressible},
                  {"policy_params", ro.policy_options.params},
                  {"time_scale", o.time_scale},
                  {"round_s", o.round_s},
                  {"restart_delay_s", o.restart_delay_s},
                  {"cluster_nodes", r.cluster_nodes},
                  {"cluster_gpus", r.cluster_gpus},
                  {"jobs", r.jobs.size()},
                  {"jobs_dropped", r.dropped},
                  {"seeds", nlohmann::ordered_json::array({o.seed})}};
  ResultRecord& rec = res.add(o.policy, o.seed);
  rec.metrics = {{"complete", r.complete},
                 {"failed_jobs", r.failed},
                 {"sim_avg_jct_s", over_both(r.sim_avg_jct_s)},
                 {"real_avg_jct_s", over_both(r.real_avg_jct_s)},
                 {"gap_avg_jct_s", over_both(gap)},
                 {"gap_avg_jct_rel", over_both(gap_rel)},
                 {"mean_abs_job_gap_s", over_both(st.mean_abs_job_gap_s)},
                 {"mean_rel_job_gap", over_both(st.mean_rel_job_gap)},
                 {"median_abs_rel_job_gap", over_both(st.median_abs_rel_job_gap)},
                 {"sim_makespan_s", r.sim_makespan_s},
                 {"real_makespan_s", r.real_makespan_s},
                 {"rounds", r.rounds.size()},
                 {"decisions", r.decisions.size()},
                 {"placements", st.placements},
                 {"decide_ms_mean", st.decide_ms_mean},
                 {"decide_ms_p99", st.decide_ms_p99},
                 {"apply_ms_per_action_mean", st.apply_ms_per_action_mean},
                 {"start_latency_s_mean", st.start_latency_s_mean},
                 {"start_latency_s_p50", st.start_latency_s_p50},
                 {"start_latency_s_max", st.start_latency_s_max}};
  rec.files = {{"jobs_csv", "jobs.csv"},
               {"rounds_csv", "rounds.csv"},
               {"decisions_csv", "decisions.csv"},
               {"calibration", "calibration.json"}};
  const cluster::Calibration calibration = live::replay_calibration(r, ro);
  rec.metrics["calibration_arrival_latency_s_mean"] = calibration.arrival.mean_s;
  rec.metrics["calibration_start_latency_s_mean"] = calibration.start.mean_s;
  rec.metrics["calibration_restart_latency_s_mean"] = calibration.restart.mean_s;
  rec.metrics["calibration_preemption_latency_s_mean"] = calibration.preemption.mean_s;
  rec.metrics["calibration_completion_latency_s_mean"] = calibration.completion.mean_s;
  auto& jobs_json = rec.detail["jobs"] = nlohmann::ordered_json::array();
  for (const auto& j : r.jobs)
    jobs_json.push_back(
        {{"name", j.name},
         {"application", j.application},
         {"num_gpus", j.num_gpus},
         {"arrival_s", j.arrival_s},
         {"slurm_id", j.slurm_id},
         {"sim_jct_s", j.sim_jct_s >= 0 ? nlohmann::ordered_json(j.sim_jct_s) : nlohmann::ordered_json()},
         {"real_jct_s", j.real_jct_s >= 0 ? nlohmann::ordered_json(j.real_jct_s) : nlohmann::ordered_json()},
         {"sim_preemptions", j.sim_preemptions},
         {"real_starts", j.real_restarts},
         {"real_state", j.real_state}});

  HtmlReport report("dmlkit cluster replay: " + o.policy + " on " + o.workload + " (Slurm)");
  report.add_facts(
      {{"Policy", o.policy},
       {"Workload", o.workload + " (" + std::to_string(r.jobs.size()) + " jobs)"},
       {"Cluster", std::to_string(r.cluster_nodes) + " Slurm nodes, " + std::to_string(r.cluster_gpus) + " GPUs"},
       {"Time scale", fixed(o.time_scale, 4) + " wall s per model s"},
       {"Average JCT, simulator", any_both ? fixed(r.sim_avg_jct_s, 1) + " s" : "no job finished in both"},
       {"Average JCT, Slurm", any_both ? fixed(r.real_avg_jct_s, 1) + " s" : "no job finished in both"},
       {"Sim-to-real gap of average JCT",
        any_both ? fixed(gap, 1) + " s (" + fixed(100 * gap_rel, 1) + " %)" : "no job finished in both"},
       {"Mean |per-job gap|", any_both ? fixed(st.mean_abs_job_gap_s, 1) + " s" : "no job finished in both"},
       {"Decision latency per round (mean)", fixed(st.decide_ms_mean, 3) + " ms"},
       {"scontrol time per applied decision (mean)", fixed(st.apply_ms_per_action_mean, 1) + " ms"},
       {"Release to RUNNING (mean)", fixed(st.start_latency_s_mean, 2) + " wall s"},
       {"Jobs failed", std::to_string(r.failed)},
       {"Calibration (calibration.json, wall s)",
        "arrival " + fixed(calibration.arrival.mean_s, 2) + ", first start " + fixed(calibration.start.mean_s, 2) +
            ", restart " + fixed(calibration.restart.mean_s, 2) + ", preemption " +
            fixed(calibration.preemption.mean_s, 2) + ", completion " + fixed(calibration.completion.mean_s, 2)}});
  report.add_paragraph(
      "Measured JCTs are in model seconds: (time Slurm reported the job COMPLETED - scheduled "
      "arrival) / time scale. Each job's work follows the simulator's speed model on the "
      "placement Slurm actually gave it (docs/live-mode.md).");
  LineChart chart;
  chart.title = "JCT per job: simulator vs Slurm";
  chart.x_title = "job (arrival order)";
  chart.y_title = "JCT (s)";
  ChartSeries s_sim{"simulator", {}, {}}, s_real{"Slurm", {}, {}};
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    if (r.jobs[i].sim_jct_s >= 0) s_sim.x.push_back(static_cast<double>(i)), s_sim.y.push_back(r.jobs[i].sim_jct_s);
    if (r.jobs[i].real_jct_s >= 0) s_real.x.push_back(static_cast<double>(i)), s_real.y.push_back(r.jobs[i].real_jct_s);
  }
  chart.series = {s_sim, s_real};
  report.add_chart(chart);
  report.add_chart(jct_scatter(r));
  report.add_heading("Timelines");
  report.add_chart(gpu_timeline(r));
  report.add_chart(running_timeline(r));
  report.add_heading("Jobs");
  report.add_table(jobs);
  report.add_heading("Decisions");
  report.add_table(decisions);

  OutputDir out(o.out);
  res.write(out);
  out.write("jobs.csv", jobs.to_csv());
  out.write("rounds.csv", rounds.to_csv());
  out.write("decisions.csv", decisions.to_csv());
  out.write("calibration.json", cluster::calibration_json(calibration));
  report.write(out);
  const std::string path = commit_output(out);

  if (o.format == "json") {
    ctx.out << res.json_text();
  } else {
    TextTable summary(
        {"policy", "jobs", "sim_avg_jct_s", "real_avg_jct_s", "gap_s", "gap_pct", "decide_ms", "start_latency_s"});
    summary.add_row({o.policy, std::to_string(r.jobs.size()), both_cell(r.sim_avg_jct_s, 1),
                     both_cell(r.real_avg_jct_s, 1), both_cell(gap, 1), both_cell(100 * gap_rel, 1),
                     fixed(st.decide_ms_mean, 3), fixed(st.start_latency_s_mean, 2)});
    ctx.out << (o.format == "csv" ? summary.to_csv() : summary.render());
  }
  print_output_location(ctx, o.format, path);
  return r.complete ? 0 : 1;
}

}  // namespace

void add_cluster_replay_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<ReplayCliOptions>();
  auto* cmd =
      cluster.add_subcommand("replay", "Replay a workload on a live Slurm cluster and compare with the simulator");
  cmd->add_flag("--slurm", o.slurm, "Run on a Slurm cluster (the only backend)");
  cmd->add_option("--fake", o.fake,
                  "Instead of --slurm: replay on the in-memory fake Slurm with NODESxGPUS (e.g. 8x4), virtual time, "
                  "no latencies: the gap the controller's own decisions make");
  cmd->add_option("--calibration", o.calibration,
                  "With --fake: a calibration.json of an earlier replay; every Slurm call and start, completion and "
                  "requeue costs its measured latency (predicts a real replay)");
  cmd->add_option("--calibration-statistic", o.calibration_statistic,
                  "With --calibration: mean, median, or sample (each event draws a measured sample; --seed)")
      ->capture_default_str();
  cmd->add_option("--workload", o.workload, "Bundled workload name or file")->capture_default_str();
  cmd->add_option("--policy", o.policy, "Policy name")->capture_default_str();
  cmd->add_option("--time-scale", o.time_scale, "Wall seconds per model second")->capture_default_str();
  cmd->add_option("--jobs", o.jobs, "Replay only the first N jobs (0 = all)")->capture_default_str();
  cmd->add_option("--round", o.round_s, "Model seconds between decision rounds")->capture_default_str();
  cmd->add_option("--restart-delay", o.restart_delay_s, "Model seconds charged at every (re)start")
      ->capture_default_str();
  cmd->add_option("--poll", o.poll_s, "Wall seconds between polls of Slurm")->capture_default_str();
  cmd->add_option("--start-timeout", o.start_timeout_s,
                  "Wall seconds a placed job may wait for Slurm to start it before it is placed elsewhere (0: never)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--max-retries", o.max_retries,
                  "Times a job that fails on its own (non-zero exit) is requeued and placed again before it is "
                  "reported as failed")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--unexpressible", o.unexpressible, live::kUnexpressibleHelp)->capture_default_str();
  cmd->add_flag("--no-gres-repair", o.no_gres_repair,
                "Do not run `scontrol reconfigure` when Slurm counts GPUs that no running job holds");
  cmd->add_option("--max-wall", o.max_wall_s, "Give up after this many wall seconds (0 = automatic)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--slurm-conf", o.slurm_conf, "slurm.conf to use (default: $SLURM_CONF or Slurm's own)");
  cmd->add_option("--placement", o.placement, "Placement: consolidate, spread, first-fit, most-free")
      ->capture_default_str();
  cmd->add_option("--policy-param", o.policy_params, "Policy knob key=value (repeatable)");
  cmd->add_option("--policy-file", o.policy_files, kPolicyFileHelp);
  cmd->add_option("--seed", o.seed, "Random seed (unused by the bundled workloads; kept for the CLI convention)")
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->add_option("--work-dir", o.work_dir, "Job scripts, done files, job output (default: OUT.work)");
  cmd->add_option("--data-dir", o.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  cmd->callback([&, cmd] {
    o.policy_given = cmd->count("--policy") > 0;
    ctx.run = [&] { return run_replay_cli(o, ctx); };
  });
}

}  // namespace dmlkit::app
