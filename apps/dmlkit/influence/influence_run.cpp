// `dmlkit influence run`: the RSB experiment (spec C.4/C.5): algorithms pick seeds on a dynamic
// network for T steps; writes results.json, CSV tables and report.html, prints a summary.
#include <ostream>
#include <sstream>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/run_output.h"
#include "dmlkit/run_notes.h"
#include "dmlkit/commands.h"
#include "dmlkit/influence/influence_output.h"
#include "dmlkit/python_plugin.h"
#include "influence/experiment.h"
#include "influence/experiment_stats.h"
#include "influence/graph_source.h"

namespace dmlkit::app {

namespace inf = dmlkit::influence;

namespace {

struct InfluenceRunOptions {
  std::string graph = "NetHEPT";
  std::string graph_format = "auto";
  uint64_t max_nodes = 0;  // --max-nodes (core/edge_file.h)
  std::string data_dir = inf::default_graph_data_dir();
  std::string dynamics = "trivalency";
  std::vector<std::string> algorithms{"rsb", "random", "static-greedy", "cucb", "oracle"};
  inf::ExperimentConfig config;
  bool no_best_fixed = false;
  std::vector<std::string> algorithm_files;  // FILE.py:CLASS (python_plugin.h)
  std::string out = "out/influence-run";
  std::string format = "table";
  CLI::Option* edge_churn_opt = nullptr;
  CLI::Option* edge_presence_opt = nullptr;
};

// Defaults of the weighted-cascade dynamics (the spec's "weighted cascade on a changing
// topology"): edges churn unless the user set the topology knobs [A].
constexpr double kWcEdgeChurn = 0.05;
constexpr double kWcEdgePresence = 0.9;

int run(InfluenceRunOptions& o, Context& ctx) {
  inf::ExperimentConfig& c = o.config;
  c.dynamics.model = inf::parse_probability_model(o.dynamics);
  if (c.dynamics.model == inf::ProbabilityModel::WeightedCascade) {
    if (o.edge_churn_opt->count() == 0) c.dynamics.edge_churn = kWcEdgeChurn;
    if (o.edge_presence_opt->count() == 0) c.dynamics.edge_presence = kWcEdgePresence;
  }
  append_missing(o.algorithms, register_python_algorithms(o.algorithm_files));  // Python algorithms run too
  c.algorithms = o.algorithms;
  c.best_fixed = !o.no_best_fixed;
  const inf::GraphFormat format = inf::parse_graph_format(o.graph_format);
  const inf::EdgeList graph = inf::load_graph(o.graph, format, o.data_dir, c.seed, o.max_nodes);
  inf::validate(c, graph);

  ProgressBar bar("influence", static_cast<double>(c.runs) * c.steps);
  const inf::ExperimentResult result = inf::run_experiment(graph, c, [&](int run, int step) {
    bar.update(static_cast<double>(run) * c.steps + step + 1, "run " + std::to_string(run + 1));
  });
  bar.finish();
  const auto summary = inf::summarize(result);

  InfluenceRunDescription desc;
  desc.graph = graph.name;
  desc.graph_path = o.graph;
  desc.nodes = graph.num_nodes;
  desc.edges = graph.num_edges();
  desc.config = c;
  const Results res = influence_results(desc, result, summary);
  OutputDir out(o.out);
  write_influence_outputs(out, desc, res, result, summary);
  const std::string path = commit_output(out);
  ctx.out << render_influence_summary(desc, res, summary, o.format);
  print_output_location(ctx, o.format, path);
  // Where the published effect is not to be expected, say so (issue 20).
  const bool churn = c.dynamics.edge_churn > 0 || c.dynamics.node_churn > 0;
  if (!churn && c.dynamics.model != inf::ProbabilityModel::Fluctuating)
    print_note(ctx, o.format,
               "--dynamics " + o.dynamics +
                   " without --edge-churn or --node-churn keeps the network nearly stationary, where RSB has "
                   "little to adapt to; --dynamics weighted-cascade churns edges (docs/reproduction-influence.md)");
  bool given_network = false;
  for (const auto& a : c.algorithms) given_network = given_network || a == "static-greedy" || a == "oracle";
  if (given_network)
    print_note(ctx, o.format,
               "static-greedy and oracle are given the network (IMM at step 0 / every step), not learners: RSB's "
               "published advantage is over online learners (random, cucb, epsilon-greedy)");
  return 0;
}

}  // namespace

void add_influence_run_command(CLI::App& influence, Context& ctx) {
  auto& o = ctx.make<InfluenceRunOptions>();
  auto& c = o.config;
  auto* cmd = influence.add_subcommand("run", "Run online influence-maximization algorithms on a dynamic network");
  cmd->add_option("--graph", o.graph,
                  "Graph: NetHEPT (bundled), er:nodes=N,degree=D (Erdos-Renyi), ba:nodes=N,m=M (preferential "
                  "attachment), or an edge-list file")
      ->capture_default_str();
  cmd->add_option("--graph-format", o.graph_format, "Graph file format: auto, header ('n m' first line) or edges")
      ->capture_default_str();
  cmd->add_option("--max-nodes", o.max_nodes, dmlkit::kMaxNodesHelp);
  cmd->add_option("--data-dir", o.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  cmd->add_option("--dynamics", o.dynamics, "Probability dynamics: trivalency, weighted-cascade, fluctuating or static")
      ->capture_default_str();
  cmd->add_option("--k", c.k, "Seeds per step")->capture_default_str();
  cmd->add_option("--steps", c.steps, "Time steps T")->capture_default_str();
  cmd->add_option("--runs,--repeats", c.runs, "Independent runs (different seeds) for means and spreads")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "Random seed (results are identical for the same seed)")->capture_default_str();
  cmd->add_option("--algorithms", o.algorithms, "Comma-separated algorithms (see `dmlkit influence algorithms`)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--algorithm-file", o.algorithm_files,
                  "An algorithm written in Python, FILE.py:CLASS (a dmlkit.influence.Algorithm subclass; repeatable): "
                  "registered under its name and run with --algorithms (docs/python.md)");
  cmd->add_option("--gamma", c.options.rsb_gamma, "RSB exploration rate gamma in (0, 1]")->capture_default_str();
  cmd->add_option("--rsb-c", c.options.rsb_c, "RSB scale C of the multiplicative update")->capture_default_str();
  cmd->add_option("--oracle-epsilon", c.options.oracle_epsilon, "IMM epsilon of the per-step oracle")
      ->capture_default_str();
  cmd->add_option("--static-epsilon", c.options.static_epsilon, "IMM epsilon of static-greedy")->capture_default_str();
  cmd->add_option("--max-rr-sets", c.options.max_rr_sets, "Cap on the RR sets of one IMM call")->capture_default_str();
  cmd->add_option("--cucb-alpha", c.options.cucb_alpha, "CUCB exploration constant alpha")->capture_default_str();
  cmd->add_option("--epsilon", c.options.epsilon_greedy, "Exploration probability of epsilon-greedy")
      ->capture_default_str();
  cmd->add_option("--trivalency-levels", c.dynamics.trivalency_levels, "Trivalency probability levels")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--fr-max", c.dynamics.fluctuating_max, "Fluctuating: upper bound of p")->capture_default_str();
  cmd->add_option("--fr-swing", c.dynamics.fluctuating_swing,
                  "Fluctuating: total change of p over the run (rate per step = swing / steps)")
      ->capture_default_str();
  o.edge_churn_opt = cmd->add_option("--edge-churn", c.dynamics.edge_churn,
                                     "Per-step probability that a present edge disappears (weighted-cascade default "
                                     "0.05, else 0)");
  o.edge_presence_opt = cmd->add_option("--edge-presence", c.dynamics.edge_presence,
                                        "Initial and long-run fraction of edges present (weighted-cascade default "
                                        "0.9, else 1)");
  cmd->add_option("--node-churn", c.dynamics.node_churn, "Per-step probability that a present node disappears")
      ->capture_default_str();
  cmd->add_option("--node-presence", c.dynamics.node_presence, "Initial and long-run fraction of nodes present")
      ->capture_default_str();
  cmd->add_option("--hindsight-rr-sets", c.hindsight_rr_sets,
                  "RR sets pooled over the run to find the best fixed seed set (weak regret)")
      ->capture_default_str();
  cmd->add_flag("--no-best-fixed", o.no_best_fixed, "Skip the best-fixed-set reference (no weak regret)");
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] { ctx.run = [&] { return run(o, ctx); }; });
}

}  // namespace dmlkit::app
