// `dmlkit influence run`: the options of influence::RunSpec (influence/run.h), then check, run,
// print the summary and write the output folder.
#include <ostream>

#include "core/edge_file.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "dmlkit/commands.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/python_plugin.h"
#include "dmlkit/run_notes.h"
#include "dmlkit/run_output.h"
#include "influence/algorithm.h"
#include "influence/graph_source.h"
#include "influence/run.h"

namespace dmlkit::app {

namespace inf = dmlkit::influence;

namespace {

struct InfluenceRunOptions {
  inf::RunSpec spec;
  std::vector<std::string> algorithm_params;  // --algorithm-param KEY=VALUE
  std::vector<std::string> named_knobs;       // --gamma, ...: one value per inf::named_knobs() entry
  std::vector<CLI::Option*> named_knob_options;
  std::vector<std::string> algorithm_files;  // FILE.py:CLASS (python_plugin.h)
  bool no_best_fixed = false;
  double edge_churn = 0, edge_presence = 1;  // given: spec.edge_churn, spec.edge_presence
  CLI::Option* edge_churn_opt = nullptr;
  CLI::Option* edge_presence_opt = nullptr;
  std::string out = "out/influence-run";
  std::string format = "table";
};

int run(InfluenceRunOptions& o, Context& ctx) {
  inf::RunSpec& spec = o.spec;
  append_missing(spec.algorithms, register_python_algorithms(o.algorithm_files));  // Python algorithms run too
  spec.best_fixed = !o.no_best_fixed;
  if (o.edge_churn_opt->count() > 0) spec.edge_churn = o.edge_churn;
  if (o.edge_presence_opt->count() > 0) spec.edge_presence = o.edge_presence;
  add_knob_values(spec.algorithm_params, o.algorithm_params, inf::kAlgorithmParamFlag);
  const auto named = inf::named_knobs();
  for (size_t i = 0; i < named.size(); ++i)
    if (o.named_knob_options[i]->count() > 0) {
      const std::string flag = std::string("--") + named[i].option;
      if (const KnobSpec* k = inf::find_algorithm_knob(named[i].knob)) k->check(o.named_knobs[i], flag);
      spec.algorithm_params[named[i].knob] = o.named_knobs[i];
    }
  inf::check(spec);

  ProgressBar bar("influence", static_cast<double>(spec.runs) * spec.steps);
  const inf::RunOutput result =
      inf::run(spec, [&](double done, const std::string& detail) { bar.update(done, detail); });
  bar.finish();
  OutputDir out(o.out);
  result.write(out);
  const std::string path = commit_output(out);
  ctx.out << result.summary_text(o.format);
  print_output_location(ctx, o.format, path);
  for (const auto& note : result.notes) print_note(ctx, o.format, note);
  return 0;
}

}  // namespace

void add_influence_run_command(CLI::App& influence, Context& ctx) {
  auto& o = ctx.make<InfluenceRunOptions>();
  auto& s = o.spec;
  s.data_dir = inf::default_graph_data_dir();
  auto* cmd = influence.add_subcommand("run", "Run online influence-maximization algorithms on a dynamic network");
  cmd->add_option("--graph", s.graph,
                  "Graph: NetHEPT (bundled), er:nodes=N,degree=D (Erdos-Renyi), ba:nodes=N,m=M (preferential "
                  "attachment), or an edge-list file")
      ->capture_default_str();
  cmd->add_option("--graph-format", s.graph_format, "Graph file format: auto, header ('n m' first line) or edges")
      ->capture_default_str();
  cmd->add_option("--max-nodes", s.max_nodes, dmlkit::kMaxNodesHelp);
  cmd->add_option("--data-dir", s.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  cmd->add_option("--dynamics", s.dynamics, "Probability dynamics: trivalency, weighted-cascade, fluctuating or static")
      ->capture_default_str();
  cmd->add_option("--k", s.k, "Seeds per step")->capture_default_str();
  cmd->add_option("--steps", s.steps, "Time steps T")->capture_default_str();
  cmd->add_option("--runs,--repeats", s.runs, "Independent runs (different seeds) for means and spreads")
      ->capture_default_str();
  cmd->add_option("--seed", s.seed, "Random seed (results are identical for the same seed)")->capture_default_str();
  cmd->add_option("--algorithms", s.algorithms, "Comma-separated algorithms (see `dmlkit influence algorithms`)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--algorithm-file", o.algorithm_files,
                  "An algorithm written in Python, FILE.py:CLASS (a dmlkit.influence.Algorithm subclass; repeatable): "
                  "registered under its name and run with --algorithms (docs/python.md)");
  cmd->add_option(inf::kAlgorithmParamFlag, o.algorithm_params,
                  "An algorithm knob, KEY=VALUE (repeatable; `dmlkit influence algorithms -v` lists them)");
  // The knobs of the first release keep an option of their own (--gamma sets rsb.gamma).
  const auto named = inf::named_knobs();
  o.named_knobs.resize(named.size());
  for (size_t i = 0; i < named.size(); ++i) {
    const KnobSpec* k = inf::find_algorithm_knob(named[i].knob);
    const std::string help = std::string("Same as ") + inf::kAlgorithmParamFlag + " " + named[i].knob + "=V" +
                             (k ? ": " + k->help : std::string());
    auto* opt = cmd->add_option(std::string("--") + named[i].option, o.named_knobs[i], help);
    if (k) opt->default_str(k->default_text());
    o.named_knob_options.push_back(opt);
  }
  cmd->add_option("--trivalency-levels", s.trivalency_levels, "Trivalency probability levels")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--fr-max", s.fr_max, "Fluctuating: upper bound of p")->capture_default_str();
  cmd->add_option("--fr-swing", s.fr_swing,
                  "Fluctuating: total change of p over the run (rate per step = swing / steps)")
      ->capture_default_str();
  o.edge_churn_opt =
      cmd->add_option("--edge-churn", o.edge_churn,
                      "Per-step probability that a present edge disappears (weighted-cascade default 0.05, else 0)");
  o.edge_presence_opt =
      cmd->add_option("--edge-presence", o.edge_presence,
                      "Initial and long-run fraction of edges present (weighted-cascade default 0.9, else 1)");
  cmd->add_option("--node-churn", s.node_churn, "Per-step probability that a present node disappears")
      ->capture_default_str();
  cmd->add_option("--node-presence", s.node_presence, "Initial and long-run fraction of nodes present")
      ->capture_default_str();
  cmd->add_option("--hindsight-rr-sets", s.hindsight_rr_sets,
                  "RR sets pooled over the run to find the best fixed seed set (weak regret)")
      ->capture_default_str();
  cmd->add_flag("--no-best-fixed", o.no_best_fixed, "Skip the best-fixed-set reference (no weak regret)");
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] { ctx.run = [&] { return run(o, ctx); }; });
}

}  // namespace dmlkit::app
