// `dmlkit influence run` as a library call (see run.h): the spec, its checks, the run, and what it
// returns (Results, the detail tables, the report, the printed summary).
#include "influence/run.h"

#include <array>
#include <set>

#include "core/error.h"
#include "influence/algorithm.h"
#include "influence/dynamics.h"
#include "influence/graph_io.h"
#include "influence/graph_source.h"
#include "influence/results.h"

namespace dmlkit::influence {

using nlohmann::ordered_json;

namespace {

// Defaults of the weighted-cascade dynamics (the spec's "weighted cascade on a changing
// topology"): edges churn unless the user set the topology knobs [A].
constexpr double kWcEdgeChurn = 0.05;
constexpr double kWcEdgePresence = 0.9;

constexpr std::array<NamedKnob, 7> kNamedKnobs{{{"rsb.gamma", "gamma", "rsb_gamma"},
                                                {"rsb.c", "rsb-c", "rsb_c"},
                                                {"oracle.epsilon", "oracle-epsilon", "oracle_epsilon"},
                                                {"static-greedy.epsilon", "static-epsilon", "static_epsilon"},
                                                {"imm.max-rr-sets", "max-rr-sets", "max_rr_sets"},
                                                {"cucb.alpha", "cucb-alpha", "cucb_alpha"},
                                                {"epsilon-greedy.epsilon", "epsilon", "epsilon_greedy"}}};

// Every knob the registered algorithms declare, each once (first declaration), named knobs first.
std::vector<KnobSpec> all_knobs() {
  std::vector<KnobSpec> out;
  std::set<std::string> seen;
  for (const auto& n : kNamedKnobs)
    if (const KnobSpec* k = find_algorithm_knob(n.knob); k != nullptr && seen.insert(k->name).second) out.push_back(*k);
  for (const auto& entry : algorithm_registry())
    for (const auto& k : entry.knobs)
      if (seen.insert(k.name).second) out.push_back(k);
  return out;
}

ordered_json knob_value(const Knobs& knobs, const KnobSpec& k) {
  switch (k.type) {
    case KnobType::Int:
      return knobs.get_int(k.name);
    case KnobType::Double:
      return knobs.get_double(k.name);
    case KnobType::Bool:
      return knobs.get_bool(k.name);
    case KnobType::String:
    case KnobType::Enum:
      return knobs.get_string(k.name);
  }
  return nullptr;
}

std::string inputs_key(const std::string& knob) {
  for (const auto& n : kNamedKnobs)
    if (knob == n.knob) return n.inputs_key;
  return knob;
}

}  // namespace

std::span<const NamedKnob> named_knobs() { return kNamedKnobs; }

ExperimentConfig RunSpec::experiment() const {
  ExperimentConfig c;
  c.k = k;
  c.steps = steps;
  c.runs = runs;
  c.seed = seed;
  c.algorithms = algorithms;
  c.algorithm_params = algorithm_params;
  c.best_fixed = best_fixed;
  c.hindsight_rr_sets = hindsight_rr_sets;
  DynamicsConfig& d = c.dynamics;
  d.model = parse_probability_model(dynamics);
  d.trivalency_levels = trivalency_levels;
  d.fluctuating_max = fr_max;
  d.fluctuating_swing = fr_swing;
  const bool wc = d.model == ProbabilityModel::WeightedCascade;
  d.edge_churn = edge_churn.value_or(wc ? kWcEdgeChurn : d.edge_churn);
  d.edge_presence = edge_presence.value_or(wc ? kWcEdgePresence : d.edge_presence);
  d.node_churn = node_churn;
  d.node_presence = node_presence;
  d.steps = steps;
  return c;
}

ordered_json RunSpec::inputs(const EdgeList& graph_loaded) const {
  const ExperimentConfig c = experiment();
  ordered_json in;
  in["graph"] = graph_loaded.name;
  in["graph_path"] = graph;
  in["nodes"] = graph_loaded.num_nodes;
  in["edges"] = graph_loaded.num_edges();
  in["dynamics"] = to_string(c.dynamics.model);
  in["k"] = c.k;
  in["steps"] = c.steps;
  in["runs"] = c.runs;
  in["seed"] = c.seed;
  in["algorithms"] = c.algorithms;
  ordered_json dyn;
  dyn["trivalency_levels"] = c.dynamics.trivalency_levels;
  dyn["fluctuating_max"] = c.dynamics.fluctuating_max;
  dyn["fluctuating_swing"] = c.dynamics.fluctuating_swing;
  dyn["edge_churn"] = c.dynamics.edge_churn;
  dyn["edge_presence"] = c.dynamics.edge_presence;
  dyn["node_churn"] = c.dynamics.node_churn;
  dyn["node_presence"] = c.dynamics.node_presence;
  in["dynamics_params"] = dyn;
  // Every knob of every registered algorithm (given or default), selected or not.
  const std::vector<KnobSpec> knobs = all_knobs();
  const Knobs values(algorithm_params, knobs, kAlgorithmParamFlag);
  ordered_json alg = ordered_json::object();
  for (const auto& k : knobs) alg[inputs_key(k.name)] = knob_value(values, k);
  in["algorithm_params"] = alg;
  in["best_fixed"] = c.best_fixed;
  in["hindsight_rr_sets"] = c.hindsight_rr_sets;
  return in;
}

void check(const RunSpec& spec) {
  parse_graph_format(spec.graph_format);
  if (spec.graph.empty()) throw Error("--graph: no graph given");
  validate(spec.experiment());  // the dynamics name, ranges, algorithms and their knobs
}

namespace {

std::string num(double v) { return fixed(v, 3); }

TextTable steps_table(const std::vector<AlgorithmSummary>& summary) {
  TextTable t({"algorithm", "step", "activated_mean", "activated_sd", "cumulative_mean", "cumulative_sd",
               "regret_oracle_mean", "regret_oracle_sd", "regret_fixed_mean", "regret_fixed_sd"});
  for (const auto& s : summary)
    for (size_t i = 0; i < s.reward.mean.size(); ++i)
      t.add_row({s.name, std::to_string(i), num(s.reward.mean[i]), num(s.reward.stddev[i]), num(s.cumulative.mean[i]),
                 num(s.cumulative.stddev[i]), s.regret_oracle ? num(s.regret_oracle->mean[i]) : "",
                 s.regret_oracle ? num(s.regret_oracle->stddev[i]) : "",
                 s.regret_fixed ? num(s.regret_fixed->mean[i]) : "",
                 s.regret_fixed ? num(s.regret_fixed->stddev[i]) : ""});
  return t;
}

TextTable runs_table(const ExperimentResult& result) {
  TextTable t({"algorithm", "run", "step", "activated"});
  auto add = [&t](const AlgorithmRuns& a) {
    for (size_t r = 0; r < a.reward.size(); ++r)
      for (size_t s = 0; s < a.reward[r].size(); ++s)
        t.add_row({a.name, std::to_string(r), std::to_string(s), fixed(a.reward[r][s], 0)});
  };
  for (const auto& a : result.algorithms) add(a);
  if (!result.best_fixed.reward.empty()) add(result.best_fixed);
  return t;
}

TextTable summary_table(const std::vector<AlgorithmSummary>& summary) {
  // Named as results.json's metrics (mean over runs, then the sample standard deviation `_sd`); the
  // regret columns only when results.json has them (an oracle run, a best-fixed set).
  bool oracle = false, fixed_set = false;
  for (const auto& s : summary) {
    oracle = oracle || s.regret_oracle.has_value();
    fixed_set = fixed_set || s.regret_fixed.has_value();
  }
  std::vector<std::string> header{"algorithm", "activated_per_step_mean", "total_activated", "total_activated_sd"};
  if (oracle) header.insert(header.end(), {"regret_oracle_final", "regret_oracle_final_sd"});
  if (fixed_set)
    header.insert(header.end(), {"regret_fixed_final", "regret_fixed_final_sd", "regret_fixed_growth_exponent"});
  TextTable t(header);
  for (const auto& s : summary) {
    std::vector<std::string> row{s.name, fixed(s.mean_per_step, 2), fixed(s.total_mean, 1), fixed(s.total_stddev, 1)};
    if (oracle) {
      row.push_back(s.regret_oracle ? fixed(s.regret_oracle->mean.back(), 1) : "");
      row.push_back(s.regret_oracle ? fixed(s.regret_oracle->stddev.back(), 1) : "");
    }
    if (fixed_set) {
      row.push_back(s.regret_fixed ? fixed(s.regret_fixed->mean.back(), 1) : "");
      row.push_back(s.regret_fixed ? fixed(s.regret_fixed->stddev.back(), 1) : "");
      row.push_back(s.regret_fixed_growth ? fixed(*s.regret_fixed_growth, 3) : "");
    }
    t.add_row(row);
  }
  return t;
}

std::vector<double> steps_axis(size_t n) {
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i);
  return x;
}

LineChart chart(const std::string& title, const std::string& y_title, const std::vector<AlgorithmSummary>& summary,
                const Curve* (*pick)(const AlgorithmSummary&)) {
  LineChart c;
  c.title = title;
  c.x_title = "time step";
  c.y_title = y_title;
  for (const auto& s : summary) {
    const Curve* curve = pick(s);
    if (curve == nullptr) continue;
    c.series.push_back({s.name, steps_axis(curve->mean.size()), curve->mean, false});
  }
  return c;
}

HtmlReport make_report(const RunSpec& spec, const ExperimentConfig& c, const RunOutput& o) {
  const std::vector<KnobSpec> knobs = all_knobs();
  const Knobs values(spec.algorithm_params, knobs, kAlgorithmParamFlag);
  const auto& summary = o.summary;
  HtmlReport report("Online influence maximization: " + o.graph_name + ", " + to_string(c.dynamics.model));
  std::vector<std::pair<std::string, std::string>> facts = {
      {"Graph", o.graph_name + " (" + std::to_string(o.nodes) + " nodes, " + std::to_string(o.edges) + " edges)"},
      {"Dynamics", to_string(c.dynamics.model)},
      {"Seeds per step (k)", std::to_string(c.k)},
      {"Steps", std::to_string(c.steps)},
      {"Runs", std::to_string(c.runs)},
      {"Seed", std::to_string(c.seed)},
      {"Edge churn / presence", fixed(c.dynamics.edge_churn, 3) + " / " + fixed(c.dynamics.edge_presence, 3)},
      {"Node churn / presence", fixed(c.dynamics.node_churn, 3) + " / " + fixed(c.dynamics.node_presence, 3)},
      {"RSB gamma / C", fixed(values.get_double("rsb.gamma"), 3) + " / " + fixed(values.get_double("rsb.c"), 3)},
      {"Oracle IMM epsilon", fixed(values.get_double("oracle.epsilon"), 3)},
  };
  report.add_facts(facts);
  report.add_paragraph(
      "Every algorithm faces the same sequence of networks and the same live-edge realization at each step. "
      "Curves are means over runs. Regret vs oracle: cumulative reward of the per-step IMM oracle minus the "
      "algorithm's. Weak regret: cumulative reward of the best fixed seed set in hindsight (greedy over RR sets "
      "pooled over all steps) minus the algorithm's.");
  report.add_heading("Summary");
  report.add_table(summary_table(summary),
                   "Means over runs; growth = log2(R(T)/R(T/2)) of the weak regret "
                   "(below 1: sublinear)");
  report.add_heading("Curves");
  // Counts of users: y axes from 0, so a small difference is not drawn as a large one.
  LineChart activated = chart("Activated users per step", "activated users", summary,
                              [](const AlgorithmSummary& s) -> const Curve* { return &s.reward; });
  activated.y_min = 0;
  report.add_chart(std::move(activated));
  LineChart cumulative = chart("Cumulative reward", "activated users (cumulative)", summary,
                               [](const AlgorithmSummary& s) -> const Curve* { return &s.cumulative; });
  cumulative.y_min = 0;
  report.add_chart(std::move(cumulative));
  if (!summary.empty() && summary.front().regret_oracle)
    report.add_chart(
        chart("Regret against the oracle", "cumulative regret", summary,
              [](const AlgorithmSummary& s) -> const Curve* { return s.regret_oracle ? &*s.regret_oracle : nullptr; }));
  if (!summary.empty() && summary.front().regret_fixed)
    report.add_chart(
        chart("Weak regret against the best fixed seed set", "cumulative regret", summary,
              [](const AlgorithmSummary& s) -> const Curve* { return s.regret_fixed ? &*s.regret_fixed : nullptr; }));
  return report;
}

// Where the published effect is not to be expected, say so (issue 20).
std::vector<std::string> notes(const RunSpec& spec, const ExperimentConfig& c) {
  std::vector<std::string> out;
  const bool churn = c.dynamics.edge_churn > 0 || c.dynamics.node_churn > 0;
  if (!churn && c.dynamics.model != ProbabilityModel::Fluctuating)
    out.push_back("--dynamics " + spec.dynamics +
                  " without --edge-churn or --node-churn keeps the network nearly stationary, where RSB has "
                  "little to adapt to; --dynamics weighted-cascade churns edges (docs/reproduction-influence.md)");
  bool given_network = false;
  for (const auto& a : c.algorithms) given_network = given_network || a == "static-greedy" || a == "oracle";
  if (given_network)
    out.push_back(
        "static-greedy and oracle are given the network (IMM at step 0 / every step), not learners: RSB's "
        "published advantage is over online learners (random, cucb, epsilon-greedy)");
  return out;
}

}  // namespace

RunOutput run(const RunSpec& spec, const RunProgress& progress) {
  check(spec);
  const ExperimentConfig c = spec.experiment();
  const EdgeList graph =
      load_graph(spec.graph, parse_graph_format(spec.graph_format),
                 spec.data_dir.empty() ? default_graph_data_dir() : spec.data_dir, c.seed, spec.max_nodes);
  validate(c, graph);
  RunOutput o;
  o.config = c;
  o.result = run_experiment(graph, c, [&](int run, int step) {
    if (progress) progress(static_cast<double>(run) * c.steps + step + 1, "run " + std::to_string(run + 1));
  });
  o.summary = summarize(o.result);
  o.graph_name = graph.name;
  o.nodes = graph.num_nodes;
  o.edges = graph.num_edges();
  o.results.inputs() = spec.inputs(graph);
  add_experiment_records(o.results, o.result, o.summary);
  o.steps = steps_table(o.summary);
  o.runs = runs_table(o.result);
  o.report = make_report(spec, c, o);
  o.notes = notes(spec, c);
  return o;
}

std::string RunOutput::summary_text(const std::string& format) const {
  if (format == "json") return results.json_text();
  const TextTable t = summary_table(summary);
  if (format == "csv") return t.to_csv();
  const ExperimentConfig& c = config;
  return "graph " + graph_name + " (" + std::to_string(nodes) + " nodes, " + std::to_string(edges) +
         " edges), dynamics " + to_string(c.dynamics.model) + ", k " + std::to_string(c.k) + ", " +
         std::to_string(c.steps) + " steps, " + std::to_string(c.runs) + " run(s), seed " + std::to_string(c.seed) +
         "\n\n" + t.render();
}

void RunOutput::write(OutputDir& out) const {
  results.write(out);
  out.write("steps.csv", steps.to_csv());
  out.write("runs.csv", runs.to_csv());
  report.write(out);
}

}  // namespace dmlkit::influence
