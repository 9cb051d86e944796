// The run entries of `dmlkit comm` (see run.h).
#include "comm/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "comm/compare.h"
#include "comm/model_graph.h"
#include "comm/scheduler.h"
#include "comm/tuner.h"
#include "core/csv.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "core/rng.h"

namespace dmlkit::comm {

using nlohmann::ordered_json;

namespace {

// "I:F" pairs of slow_workers / slow_links.
std::vector<std::pair<int, double>> index_factor_pairs(const std::vector<std::string>& specs, const char* field) {
  std::vector<std::pair<int, double>> out;
  for (const auto& spec : specs) {
    const auto colon = spec.find(':');
    double index = -1, factor = 0;
    if (colon == std::string::npos || !parse_double(spec.substr(0, colon), index) ||
        !parse_double(spec.substr(colon + 1), factor) || index != std::floor(index))
      throw Error("", 0, field, "expected WORKER:FACTOR (e.g. 3:0.5), got '" + spec + "'");
    out.emplace_back(static_cast<int>(index), factor);
  }
  return out;
}

// The knobs the CLI's shared options set (bare keys), recorded in inputs as before the registry
// declared them (docs/results-schema.md, "comm"): key, inputs name, bytes (or seconds) per unit.
struct SharedKnob {
  const char* key;
  const char* input;
  double unit;
};
constexpr SharedKnob kSharedKnobs[] = {{"partition-mb", "partition_bytes", 1e6},
                                       {"credit-mb", "credit_bytes", 1e6},
                                       {"fusion-mb", "fusion_bytes", 1024.0 * 1024},
                                       {"cycle-ms", "cycle_s", 1e-3}};

void write_training_inputs(ordered_json& in, const TrainingSpec& o, const Setup& s) {
  in["model"] = o.model;
  in["tensors"] = o.tensors;
  in["arch"] = o.arch;
  in["workers"] = s.net.workers;
  in["servers"] = s.net.arch == Arch::ps ? s.net.servers : 0;
  in["bandwidth_Bps"] = s.net.bandwidth_Bps;
  in["latency_s"] = s.net.latency_s;
  in["switch_bandwidth_Bps"] = s.net.switch_bandwidth_Bps;
  in["racks"] = s.net.racks;
  in["uplink_bandwidth_Bps"] = s.net.uplink_bandwidth_Bps;
  in["op_overhead_s"] = s.net.op_overhead_s;
  in["ring_stepwise"] = s.net.ring_stepwise;
  in["compute_scale"] = o.compute_scale;
  in["slow_workers"] = o.slow_workers;
  in["slow_links"] = o.slow_links;
  in["batch"] = o.batch;
  in["iterations"] = o.iterations;
  in["warmup"] = o.warmup;
}

TextTable summary_table(const std::vector<SchedulerRun>& rows, double lb) {
  TextTable t({"scheduler", "iteration_mean_ms", "speedup_over_fifo", "lower_bound_ms", "distance_to_lower_bound_pct",
               "overlap", "transfers"});
  for (const auto& row : rows)
    t.add_row({row.r.scheduler, fixed(row.r.iteration_mean_s * 1e3, 3),
               std::isfinite(row.speedup_over_fifo) ? fixed(row.speedup_over_fifo, 3) : "", fixed(lb * 1e3, 3),
               fixed(row.distance_to_bound * 100, 1), fixed(row.r.overlap, 3), std::to_string(row.r.transfers)});
  return t;
}

void fill_report(HtmlReport& rep, const RunSpec& o, const Setup& s, const std::vector<SchedulerRun>& rows) {
  rep.add_facts({{"Model", o.model + " (" + std::to_string(s.workload.tensors.size()) + " gradient tensors, " +
                               fixed(s.workload.total_bytes() / 1e6, 1) + " MB)"},
                 {"Architecture",
                  o.arch == "ps" ? "parameter servers (" + std::to_string(s.net.servers) + ")" : "ring all-reduce"},
                 {"Workers", std::to_string(s.net.workers)},
                 {"NIC bandwidth", o.bandwidth},
                 {"Compute per iteration", fixed(s.workload.compute_s() * 1e3, 2) + " ms"},
                 {"Lower bound", fixed(lower_bound_s(s.workload, s.net) * 1e3, 2) + " ms (max of compute and " +
                                     fixed(comm_bound_s(s.workload, s.net) * 1e3, 2) + " ms of transfer)"}});
  rep.add_heading("Iteration time per scheduler");
  rep.add_table(summary_table(rows, lower_bound_s(s.workload, s.net)),
                "Steady state (mean after warm-up). overlap = fraction of communication time hidden under compute; "
                "distance_to_lower_bound_pct = how far above the lower bound, in percent.");
  rep.add_heading("Timelines");
  rep.add_paragraph(
      "One steady-state iteration per scheduler: the first row is the GPU (forward and backward "
      "compute), the next rows are the network resources (PS server NICs or the ring), one bar per "
      "transfer (hover a bar for its layer or tensor). Every span with its tensor is in timeline-<scheduler>.csv; "
      "--trace FILE.json writes all of them as a Chrome/Perfetto trace (ui.perfetto.dev, chrome://tracing).");
  for (const auto& row : rows) rep.add_chart(iteration_gantt(row.r));
}

// One-line notes (issue 20): every scheduler at a compute-bound lower bound (scheduling cannot
// help), or bytescheduler on its default knobs slower than fifo (they are far from tuned: `comm
// tune` finds better ones).
std::vector<std::string> run_notes(const RunSpec& o, const Setup& s, const std::vector<SchedulerRun>& rows) {
  std::vector<std::string> notes;
  const double compute = s.workload.compute_s(), transfer = comm_bound_s(s.workload, s.net);
  bool all_at_bound = !rows.empty();
  for (const auto& row : rows) all_at_bound = all_at_bound && row.distance_to_bound < 0.01;
  if (all_at_bound && compute >= transfer)
    notes.push_back("every scheduler is within 1% of the lower bound, the compute time (" + fixed(compute * 1e3, 1) +
                    " ms against " + fixed(transfer * 1e3, 1) + " ms of transfer): " + o.model +
                    " is compute-bound at " + o.bandwidth +
                    ", so no scheduler can help; try a lower --bandwidth or --model vgg16");
  for (const auto& row : rows) {
    const auto& name = row.r.scheduler;
    if (name != "bytescheduler" || !(row.speedup_over_fifo < 1)) continue;
    const KnobValues given = scheduler_knobs(name, o.scheduler_params);
    if (given.count("bytescheduler.partition-mb") || given.count("bytescheduler.credit-mb")) continue;
    notes.push_back(name + " ran on its default --partition-mb/--credit-mb and is " + fixed(row.speedup_over_fifo, 2) +
                    "x fifo here; its defaults are far from tuned: `dmlkit comm tune --scheduler bytescheduler` "
                    "with the same options finds better ones (docs/comm.md)");
  }
  return notes;
}

// The schedulers with a tuning space, "a, b and c".
std::string tunable_names() {
  std::vector<std::string> names;
  for (const auto& e : scheduler_registry())
    if (!e.traits.tune.dims.empty()) names.push_back(e.name);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

TextTable probes_table(const std::vector<TuneDimension>& dims, const TuneResult& r) {
  std::vector<std::string> header{"probe"};
  for (const auto& d : dims) header.push_back(d.name);
  header.push_back("iteration_ms");
  header.push_back("best_so_far_ms");
  TextTable t(header);
  double best = INFINITY;
  for (size_t i = 0; i < r.probes.size(); ++i) {
    best = std::min(best, r.probes[i].value);
    std::vector<std::string> row{std::to_string(i + 1)};
    for (double v : r.probes[i].x) row.push_back(fixed(v, 3));
    row.push_back(fixed(r.probes[i].value * 1e3, 3));
    row.push_back(fixed(best * 1e3, 3));
    t.add_row(row);
  }
  return t;
}

ChartSeries best_so_far(const std::string& label, const TuneResult& r) {
  ChartSeries s;
  s.label = label;
  double best = INFINITY;
  for (size_t i = 0; i < r.probes.size(); ++i) {
    best = std::min(best, r.probes[i].value);
    s.x.push_back(static_cast<double>(i + 1));
    s.y.push_back(best * 1e3);
  }
  return s;
}

}  // namespace

Setup make_setup(const TrainingSpec& o) {
  Setup s;
  s.net.arch = parse_arch(o.arch);
  s.net.workers = o.workers;
  s.net.servers = o.servers == 0 ? o.workers : o.servers;
  if (o.servers < 0) throw Error("", 0, "servers", "must be >= 0");
  s.net.bandwidth_Bps = parse_bandwidth(o.bandwidth, "bandwidth");
  s.net.latency_s = o.latency_us * 1e-6;
  if (!o.switch_bandwidth.empty()) s.net.switch_bandwidth_Bps = parse_bandwidth(o.switch_bandwidth, "switch_bandwidth");
  s.net.op_overhead_s = o.op_overhead_us * 1e-6;
  s.net.racks = o.racks;
  if (!o.uplink_bandwidth.empty()) s.net.uplink_bandwidth_Bps = parse_bandwidth(o.uplink_bandwidth, "uplink_bandwidth");
  s.net.ring_stepwise = o.ring_stepwise;
  s.net.slow_links = index_factor_pairs(o.slow_links, "slow_link");
  double slowest = 1;
  for (const auto& [w, f] : index_factor_pairs(o.slow_workers, "slow_worker")) {
    if (w < 0 || w >= o.workers)
      throw Error("", 0, "slow_worker",
                  "worker " + std::to_string(w) + " does not exist (workers 0-" + std::to_string(o.workers - 1) + ")");
    if (!(f >= 1) || !std::isfinite(f)) throw Error("", 0, "slow_worker", "the slowdown factor must be >= 1");
    slowest = std::max(slowest, f);
  }
  s.net.validate();
  if (o.batch < 1) throw Error("", 0, "batch", "must be >= 1");
  const std::string data_dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
  auto graph = load_model(o.model, o.graph_dir.empty() ? data_dir + "/model-graphs" : o.graph_dir);
  // [A] Workers are otherwise identical and synchronous: each tensor is reduced when the slowest
  // worker has it, and every worker waits for the reduced parameters, so the iterations run at the
  // slowest worker's compute pace (the simulator's one compute timeline takes it).
  scale_compute(graph, o.compute_scale * o.batch / 128.0 * slowest);
  s.workload = make_workload(graph, parse_granularity(o.tensors));
  s.sim.iterations = o.iterations;
  s.sim.warmup = o.warmup;
  s.sim.validate();
  return s;
}

std::vector<std::string> RunSpec::chosen() const {
  if (!schedulers.empty()) return schedulers;
  std::vector<std::string> out;
  for (const auto& e : scheduler_registry().entries())
    if ((arch == "ps" && e.traits.ps) || (arch != "ps" && e.traits.allreduce)) out.push_back(e.name);
  return out;
}

void RunSpec::write_inputs(Results& res, const Setup& s) const {
  const std::vector<std::string> names = chosen();
  auto& in = res.inputs();
  write_training_inputs(in, *this, s);
  const auto mode = scheduler_params.find("credit-mode");
  in["credit_mode"] = mode == scheduler_params.end() ? "any" : mode->second;
  for (const auto& k : kSharedKnobs)
    if (const auto it = scheduler_params.find(k.key); it != scheduler_params.end()) {
      double v = 0;
      parse_double(it->second, v);
      in[k.input] = v * k.unit;
    }
  KnobValues qualified;  // knobs given by their registry names (--scheduler-param)
  for (const auto& [k, v] : scheduler_params)
    if (k.find('.') != std::string::npos) qualified[k] = v;
  if (!qualified.empty()) in["scheduler_params"] = qualified;
  in["schedulers"] = names;
  // Every knob of the chosen schedulers as used: given, else its default resolved for this run (issue 20).
  KnobValues effective;
  for (const auto& name : names)
    for (auto& [k, v] : effective_scheduler_knobs(name, scheduler_params, s.workload, s.net)) effective[k] = v;
  in["effective_knobs"] = effective;
  in["seeds"] = ordered_json::array({seed});
}

void TuneSpec::write_inputs(Results& res, const Setup& s) const {
  res.inputs() = {{"model", model},
                  {"arch", arch},
                  {"workers", s.net.workers},
                  {"servers", s.net.arch == Arch::ps ? s.net.servers : 0},
                  {"bandwidth_Bps", s.net.bandwidth_Bps},
                  {"scheduler", scheduler},
                  {"probes", probes},
                  {"initial", initial},
                  {"grid", grid},
                  {"seeds", ordered_json::array({seed})}};
  // The knobs the `default` record ran with, resolved for this run (issue 20).
  res.inputs()["effective_knobs"] = effective_scheduler_knobs(scheduler, scheduler_params, s.workload, s.net);
}

void RunOutput::write(OutputDir& out) const {
  results.write(out);
  for (const auto& [name, content] : files) out.write(name, content);
  report.write(out);
}

Setup check(const RunSpec& o) {
  Setup s = make_setup(o);
  const std::vector<std::string> names = o.chosen();
  if (names.empty()) throw Error("", 0, "schedulers", "no scheduler given");
  // A knob none of the chosen schedulers reads is rejected (as a typo would be).
  check_scheduler_params(names, o.scheduler_params);
  for (size_t i = 0; i < names.size(); ++i) {
    validate_scheduler(names[i], o.scheduler_params, s.workload, s.net);
    for (size_t k = 0; k < i; ++k)
      if (names[i] == names[k]) throw Error("", 0, "schedulers", "'" + names[i] + "' given twice");
  }
  return s;
}

RunOutput run(const RunSpec& o, ProgressBar* progress) {
  const Setup s = check(o);
  const std::vector<std::string> names = o.chosen();
  std::vector<SchedulerRun> rows;
  for (const auto& name : names) {
    rows.push_back({simulate(s.workload, s.net, name, o.scheduler_params, s.sim)});
    if (progress) progress->update(static_cast<double>(rows.size()), name);
  }
  const double lb = lower_bound_s(s.workload, s.net);
  add_speedups(rows, lb);
  RunOutput out(Results(o.command, "scheduler"),
                "dmlkit comm: " + o.model + " on " + std::to_string(s.net.workers) + " workers (" + o.arch + ")",
                summary_table(rows, lb).header());
  Results& res = out.results;
  o.write_inputs(res, s);
  auto& d = res.derived();
  d["compute_s"] = s.workload.compute_s();
  d["gradient_bytes"] = s.workload.total_bytes();
  d["tensors"] = s.workload.tensors.size();
  d["comm_bound_s"] = comm_bound_s(s.workload, s.net);
  d["lower_bound_s"] = lb;
  add_scheduler_records(res, rows, o.seed);
  for (const auto& row : rows)
    out.files.emplace_back("timeline-" + row.r.scheduler + ".csv", timeline_table(row.r).to_csv());
  fill_report(out.report, o, s, rows);
  out.summary = summary_table(rows, lb);
  out.before_table = o.model + " on " + std::to_string(s.net.workers) + " workers, " + o.arch + ", " + o.bandwidth +
                     ": compute " + fixed(s.workload.compute_s() * 1e3, 2) + " ms, gradients " +
                     fixed(s.workload.total_bytes() / 1e6, 1) + " MB\n\n";
  out.notes = run_notes(o, s, rows);
  // The same timelines for ui.perfetto.dev / chrome://tracing.
  for (size_t i = 0; i < rows.size(); ++i) add_iteration_trace(out.trace, static_cast<int>(i) + 1, rows[i].r);
  return out;
}

Setup check(const TuneSpec& t) {
  const SchedulerEntry& entry = scheduler_registry().get(t.scheduler);
  if (entry.traits.tune.dims.empty())
    throw Error("", 0, "scheduler", "tune supports " + tunable_names() + ", not '" + t.scheduler + "'");
  Setup s = make_setup(t);
  check_scheduler_params({t.scheduler}, t.scheduler_params);
  validate_scheduler(t.scheduler, t.scheduler_params, s.workload, s.net);
  if (t.probes < 1 || t.probes > 500) throw Error("", 0, "probes", "must be between 1 and 500");
  if (t.initial < 1) throw Error("", 0, "initial", "must be >= 1");
  if (t.grid != 0 && (t.grid < 2 || t.grid > 30)) throw Error("", 0, "grid", "must be 0 (off) or 2..30");
  return s;
}

RunOutput run(const TuneSpec& t, ProgressBar* progress) {
  const Setup s = check(t);
  const TuneSpace& space = scheduler_registry().get(t.scheduler).traits.tune;
  const auto& dims = space.dims;
  const KnobValues base = scheduler_knobs(t.scheduler, t.scheduler_params);
  int probes_run = 0;
  auto objective = [&](const std::vector<double>& x) {
    const double v = simulate(s.workload, s.net, t.scheduler, space.apply(base, x), s.sim).iteration_mean_s;
    if (progress) progress->update(++probes_run);
    return v;
  };
  BayesOptions bo;
  bo.max_probes = t.probes;
  bo.initial_points = t.initial;
  const TuneResult bayes = bayes_optimize(dims, objective, bo, Rng(t.seed).split(4));
  TuneResult grid;
  if (t.grid > 0) grid = grid_search(dims, objective, t.grid);
  const double default_s = simulate(s.workload, s.net, t.scheduler, base, s.sim).iteration_mean_s;
  const double lb = lower_bound_s(s.workload, s.net);

  std::vector<std::string> header{"method", "probes"};
  for (const auto& d : dims) header.push_back(d.name);
  header.push_back("iteration_ms");
  RunOutput out(Results("comm tune", "method"), "dmlkit comm tune: " + t.scheduler + " on " + t.model, header);
  Results& res = out.results;
  t.write_inputs(res, s);
  auto probe_json = [&](const TuneResult& r) {
    ordered_json a = ordered_json::array();
    for (const auto& p : r.probes) {
      ordered_json e;
      for (size_t k = 0; k < dims.size(); ++k) e[dims[k].name] = p.x[k];
      e["iteration_s"] = p.value;
      a.push_back(e);
    }
    return a;
  };
  // One record per method: the knobs it ends with and their iteration time.
  auto add_method = [&](const std::string& name, const TuneResult* r, double best_s) {
    ResultRecord& rec = res.add(name, t.seed);
    rec.metrics["iteration_s"] = best_s;
    rec.metrics["probes"] = r ? r->probes.size() : 1;
    rec.metrics["best_index"] = r ? ordered_json(r->best) : ordered_json();
    for (size_t k = 0; k < dims.size(); ++k)
      rec.metrics[dims[k].name] = r ? ordered_json(r->best_probe().x[k]) : ordered_json();
    if (r) {
      rec.detail["probes"] = probe_json(*r);
      rec.files["probes_csv"] = "probes-" + name + ".csv";
    }
  };
  add_method("default", nullptr, default_s);
  add_method("bayes", &bayes, bayes.best_probe().value);
  if (t.grid > 0) add_method("grid", &grid, grid.best_probe().value);
  res.derived()["lower_bound_s"] = lb;
  if (t.grid > 0) res.derived()["bayes_gap_to_grid"] = bayes.best_probe().value / grid.best_probe().value - 1;
  out.files.emplace_back("probes-bayes.csv", probes_table(dims, bayes).to_csv());
  if (t.grid > 0) out.files.emplace_back("probes-grid.csv", probes_table(dims, grid).to_csv());

  HtmlReport& rep = out.report;
  std::vector<std::pair<std::string, std::string>> facts{
      {"Cluster", std::to_string(s.net.workers) + " workers, " + t.arch + ", " + t.bandwidth},
      {"Default knobs", fixed(default_s * 1e3, 2) + " ms"},
      {"Bayesian optimisation",
       fixed(bayes.best_probe().value * 1e3, 2) + " ms after " + std::to_string(bayes.probes.size()) + " probes"},
      {"Lower bound", fixed(lb * 1e3, 2) + " ms"}};
  if (t.grid > 0)
    facts.push_back({"Grid search", fixed(grid.best_probe().value * 1e3, 2) + " ms after " +
                                        std::to_string(grid.probes.size()) + " probes"});
  rep.add_facts(facts);
  LineChart c;
  c.title = "Best iteration time found so far";
  c.x_title = "probe (simulated run)";
  c.y_title = "iteration (ms)";
  c.series.push_back(best_so_far("Bayesian optimisation (GP + EI)", bayes));
  if (t.grid > 0) c.series.push_back(best_so_far("grid search", grid));
  rep.add_chart(c);
  rep.add_heading("Bayesian optimisation probes");
  rep.add_table(probes_table(dims, bayes));

  auto method_row = [&](const std::string& name, const TuneResult& r) {
    std::vector<std::string> row{name, std::to_string(r.probes.size())};
    for (double v : r.best_probe().x) row.push_back(fixed(v, 3));
    row.push_back(fixed(r.best_probe().value * 1e3, 3));
    return row;
  };
  std::vector<std::string> default_row{"default", "1"};
  default_row.resize(2 + dims.size());
  default_row.push_back(fixed(default_s * 1e3, 3));
  out.summary.add_row(default_row);
  out.summary.add_row(method_row("bayes", bayes));
  if (t.grid > 0) out.summary.add_row(method_row("grid", grid));
  out.after_table = "\nlower bound " + fixed(lb * 1e3, 3) + " ms\n";
  // A flat search or far-off defaults, said in one line (issue 20).
  const double best = bayes.best_probe().value;
  if (default_s <= lb * 1.01)
    out.notes.push_back(
        "the default knobs are already within 1% of the lower bound, so no knob can help and the search is "
        "flat: " +
        t.model + " is not network-bound at " + t.bandwidth + "; try a lower --bandwidth or --model vgg16");
  else if (default_s > 1.2 * best)
    out.notes.push_back("the default knobs are far from tuned here: " + fixed(default_s * 1e3, 1) + " ms against " +
                        fixed(best * 1e3, 1) + " ms (" + fixed(default_s / best, 2) + "x)");
  return out;
}

}  // namespace dmlkit::comm
