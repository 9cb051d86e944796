// `dmlkit comm tune`: Bayesian optimisation (GP + expected improvement) of ByteScheduler's
// partition size and credit, or Horovod's fusion threshold and cycle time, each probe a simulated
// run; compared with a grid search over the same box (docs/comm.md, "Auto-tuning").
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "comm/scheduler_knobs.h"
#include "comm/tune_space.h"
#include "comm/tuner.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/run_output.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/run_notes.h"

namespace dmlkit::app {

namespace {

struct TuneOptions {
  CommRunOptions run;
  std::string scheduler = "bytescheduler";
  int probes = 20;
  int initial = 5;
  int grid = 8;
};

TextTable probes_table(const std::vector<comm::TuneDimension>& dims, const comm::TuneResult& r) {
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

ChartSeries best_so_far(const std::string& label, const comm::TuneResult& r) {
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

// What run_tune checks before the first probe; alone, it is Context::validate.
CommSetup checked_setup(const TuneOptions& t) {
  (void)comm::tune_dimensions(t.scheduler);
  CommSetup s = make_comm_setup(t.run);
  comm::validate_scheduler(t.scheduler, s.sched, s.net.arch);
  if (t.probes < 1 || t.probes > 500) throw Error("", 0, "probes", "must be between 1 and 500");
  if (t.initial < 1) throw Error("", 0, "initial", "must be >= 1");
  if (t.grid != 0 && (t.grid < 2 || t.grid > 30)) throw Error("", 0, "grid", "must be 0 (off) or 2..30");
  return s;
}

int run_tune(const TuneOptions& t, Context& ctx) {
  const CommSetup s = checked_setup(t);
  const auto dims = comm::tune_dimensions(t.scheduler);
  auto objective = [&](const std::vector<double>& x) {
    return comm::simulate(s.workload, s.net, t.scheduler, comm::apply_tune_point(t.scheduler, s.sched, x), s.sim)
        .iteration_mean_s;
  };
  comm::BayesOptions bo;
  bo.max_probes = t.probes;
  bo.initial_points = t.initial;
  const comm::TuneResult bayes = comm::bayes_optimize(dims, objective, bo, Rng(t.run.seed).split(4));
  comm::TuneResult grid;
  if (t.grid > 0) grid = comm::grid_search(dims, objective, t.grid);
  const double default_s = comm::simulate(s.workload, s.net, t.scheduler, s.sched, s.sim).iteration_mean_s;
  const double lb = comm::lower_bound_s(s.workload, s.net);

  Results res("comm tune", "method");
  res.inputs() = {{"model", t.run.model},
                  {"arch", t.run.arch},
                  {"workers", s.net.workers},
                  {"servers", s.net.arch == comm::Arch::ps ? s.net.servers : 0},
                  {"bandwidth_Bps", s.net.bandwidth_Bps},
                  {"scheduler", t.scheduler},
                  {"probes", t.probes},
                  {"initial", t.initial},
                  {"grid", t.grid},
                  {"seeds", nlohmann::ordered_json::array({t.run.seed})}};
  // The knobs the `default` record ran with, resolved for this run (issue 20; comm/scheduler_knobs.h).
  res.inputs()["effective_knobs"] = comm::resolved_scheduler_knobs({t.scheduler}, s.sched, s.net.arch, s.workload, s.net);
  auto probe_json = [&](const comm::TuneResult& r) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& p : r.probes) {
      nlohmann::ordered_json e;
      for (size_t k = 0; k < dims.size(); ++k) e[dims[k].name] = p.x[k];
      e["iteration_s"] = p.value;
      a.push_back(e);
    }
    return a;
  };
  // One record per method: the knobs it ends with and their iteration time.
  auto add_method = [&](const std::string& name, const comm::TuneResult* r, double best_s) {
    ResultRecord& rec = res.add(name, t.run.seed);
    rec.metrics["iteration_s"] = best_s;
    rec.metrics["probes"] = r ? r->probes.size() : 1;
    rec.metrics["best_index"] = r ? nlohmann::ordered_json(r->best) : nlohmann::ordered_json();
    for (size_t k = 0; k < dims.size(); ++k)
      rec.metrics[dims[k].name] = r ? nlohmann::ordered_json(r->best_probe().x[k]) : nlohmann::ordered_json();
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
  OutputDir out(t.run.out);
  res.write(out);
  out.write("probes-bayes.csv", probes_table(dims, bayes).to_csv());
  if (t.grid > 0) out.write("probes-grid.csv", probes_table(dims, grid).to_csv());
  HtmlReport rep("dmlkit comm tune: " + t.scheduler + " on " + t.run.model);
  std::vector<std::pair<std::string, std::string>> facts{
      {"Cluster", std::to_string(s.net.workers) + " workers, " + t.run.arch + ", " + t.run.bandwidth},
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
  rep.write(out);
  const std::string path = commit_output(out);

  if (t.run.format == "json") {
    ctx.out << res.json_text();
  } else {
    TextTable summary({"method", "probes", dims[0].name, dims[1].name, "iteration_ms"});
    summary.add_row({"default", "1", "", "", fixed(default_s * 1e3, 3)});
    summary.add_row({"bayes", std::to_string(bayes.probes.size()), fixed(bayes.best_probe().x[0], 3),
                     fixed(bayes.best_probe().x[1], 3), fixed(bayes.best_probe().value * 1e3, 3)});
    if (t.grid > 0)
      summary.add_row({"grid", std::to_string(grid.probes.size()), fixed(grid.best_probe().x[0], 3),
                       fixed(grid.best_probe().x[1], 3), fixed(grid.best_probe().value * 1e3, 3)});
    ctx.out << (t.run.format == "csv" ? summary.to_csv() : summary.render());
    if (t.run.format == "table") ctx.out << "\nlower bound " << fixed(lb * 1e3, 3) << " ms\n";
  }
  print_output_location(ctx, t.run.format, path);
  // A flat search or far-off defaults, said in one line (issue 20).
  const double best = bayes.best_probe().value;
  if (default_s <= lb * 1.01)
    print_note(ctx, t.run.format,
               "the default knobs are already within 1% of the lower bound, so no knob can help and the search is "
               "flat: " + t.run.model + " is not network-bound at " + t.run.bandwidth +
                   "; try a lower --bandwidth or --model vgg16");
  else if (default_s > 1.2 * best)
    print_note(ctx, t.run.format,
               "the default knobs are far from tuned here: " + fixed(default_s * 1e3, 1) + " ms against " +
                   fixed(best * 1e3, 1) + " ms (" + fixed(default_s / best, 2) + "x)");
  return 0;
}

}  // namespace

void add_comm_tune_command(CLI::App& comm, Context& ctx) {
  auto& t = ctx.make<TuneOptions>();
  auto* cmd = comm.add_subcommand("tune", "Auto-tune bytescheduler (partition, credit) or horovod (threshold, cycle)");
  cmd->add_option("--scheduler", t.scheduler, "bytescheduler or horovod")->capture_default_str();
  cmd->add_option("--probes", t.probes, "Simulated runs of the Bayesian optimisation")->capture_default_str();
  cmd->add_option("--initial", t.initial, "Random initial probes before expected improvement")->capture_default_str();
  cmd->add_option("--grid", t.grid, "Grid points per dimension for the comparison (0 = no grid)")
      ->capture_default_str();
  add_comm_run_options(*cmd, t.run, false);
  cmd->add_option("--credit-mode", t.run.credit_mode, "bytescheduler credit semantics: any or skip")
      ->capture_default_str();
  cmd->callback([&] {
    t.run.command = "comm tune";
    if (t.run.out.empty()) t.run.out = "out/comm-tune";
    ctx.run = [&] { return run_tune(t, ctx); };
    ctx.validate = [&] { (void)checked_setup(t); };
  });
}

}  // namespace dmlkit::app
