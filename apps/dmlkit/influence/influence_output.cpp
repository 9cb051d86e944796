// results.json, CSV tables, report.html and the stdout summary of an influence experiment.
#include "dmlkit/influence/influence_output.h"

#include <nlohmann/json.hpp>

#include "core/html_report.h"
#include "core/table.h"
#include "influence/dynamics.h"
#include "influence/results.h"

namespace dmlkit::app {

namespace inf = dmlkit::influence;
using nlohmann::ordered_json;

namespace {

ordered_json inputs_json(const InfluenceRunDescription& d) {
  const auto& c = d.config;
  ordered_json in;
  in["graph"] = d.graph;
  in["graph_path"] = d.graph_path;
  in["nodes"] = d.nodes;
  in["edges"] = d.edges;
  in["dynamics"] = inf::to_string(c.dynamics.model);
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
  ordered_json alg;
  alg["rsb_gamma"] = c.options.rsb_gamma;
  alg["rsb_c"] = c.options.rsb_c;
  alg["oracle_epsilon"] = c.options.oracle_epsilon;
  alg["static_epsilon"] = c.options.static_epsilon;
  alg["max_rr_sets"] = c.options.max_rr_sets;
  alg["cucb_alpha"] = c.options.cucb_alpha;
  alg["epsilon_greedy"] = c.options.epsilon_greedy;
  in["algorithm_params"] = alg;
  in["best_fixed"] = c.best_fixed;
  in["hindsight_rr_sets"] = c.hindsight_rr_sets;
  return in;
}

}  // namespace

Results influence_results(const InfluenceRunDescription& d, const inf::ExperimentResult& result,
                          const std::vector<inf::AlgorithmSummary>& summary) {
  Results res("influence run", "algorithm");
  res.inputs() = inputs_json(d);
  inf::add_experiment_records(res, result, summary);
  return res;
}

namespace {

std::string num(double v) { return fixed(v, 3); }

TextTable steps_table(const std::vector<inf::AlgorithmSummary>& summary) {
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

TextTable runs_table(const inf::ExperimentResult& result) {
  TextTable t({"algorithm", "run", "step", "activated"});
  auto add = [&t](const inf::AlgorithmRuns& a) {
    for (size_t r = 0; r < a.reward.size(); ++r)
      for (size_t s = 0; s < a.reward[r].size(); ++s)
        t.add_row({a.name, std::to_string(r), std::to_string(s), fixed(a.reward[r][s], 0)});
  };
  for (const auto& a : result.algorithms) add(a);
  if (!result.best_fixed.reward.empty()) add(result.best_fixed);
  return t;
}

TextTable summary_table(const std::vector<inf::AlgorithmSummary>& summary) {
  // Named as results.json's metrics (mean over runs, then the sample standard deviation `_sd`); the
  // regret columns only when results.json has them (an oracle run, a best-fixed set).
  bool oracle = false, fixed_set = false;
  for (const auto& s : summary) {
    oracle = oracle || s.regret_oracle.has_value();
    fixed_set = fixed_set || s.regret_fixed.has_value();
  }
  std::vector<std::string> header{"algorithm", "activated_per_step_mean", "total_activated", "total_activated_sd"};
  if (oracle) header.insert(header.end(), {"regret_oracle_final", "regret_oracle_final_sd"});
  if (fixed_set) header.insert(header.end(), {"regret_fixed_final", "regret_fixed_final_sd", "regret_fixed_growth_exponent"});
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

LineChart chart(const std::string& title, const std::string& y_title, const std::vector<inf::AlgorithmSummary>& summary,
                const inf::Curve* (*pick)(const inf::AlgorithmSummary&)) {
  LineChart c;
  c.title = title;
  c.x_title = "time step";
  c.y_title = y_title;
  for (const auto& s : summary) {
    const inf::Curve* curve = pick(s);
    if (curve == nullptr) continue;
    c.series.push_back({s.name, steps_axis(curve->mean.size()), curve->mean, false});
  }
  return c;
}

HtmlReport report(const InfluenceRunDescription& d, const inf::ExperimentResult& result,
                  const std::vector<inf::AlgorithmSummary>& summary) {
  const auto& c = d.config;
  HtmlReport report("Online influence maximization: " + d.graph + ", " + inf::to_string(c.dynamics.model));
  std::vector<std::pair<std::string, std::string>> facts = {
      {"Graph", d.graph + " (" + std::to_string(d.nodes) + " nodes, " + std::to_string(d.edges) + " edges)"},
      {"Dynamics", inf::to_string(c.dynamics.model)},
      {"Seeds per step (k)", std::to_string(c.k)},
      {"Steps", std::to_string(c.steps)},
      {"Runs", std::to_string(c.runs)},
      {"Seed", std::to_string(c.seed)},
      {"Edge churn / presence", fixed(c.dynamics.edge_churn, 3) + " / " + fixed(c.dynamics.edge_presence, 3)},
      {"Node churn / presence", fixed(c.dynamics.node_churn, 3) + " / " + fixed(c.dynamics.node_presence, 3)},
      {"RSB gamma / C", fixed(c.options.rsb_gamma, 3) + " / " + fixed(c.options.rsb_c, 3)},
      {"Oracle IMM epsilon", fixed(c.options.oracle_epsilon, 3)},
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
                              [](const inf::AlgorithmSummary& s) -> const inf::Curve* { return &s.reward; });
  activated.y_min = 0;
  report.add_chart(std::move(activated));
  LineChart cumulative = chart("Cumulative reward", "activated users (cumulative)", summary,
                               [](const inf::AlgorithmSummary& s) -> const inf::Curve* { return &s.cumulative; });
  cumulative.y_min = 0;
  report.add_chart(std::move(cumulative));
  if (!summary.empty() && summary.front().regret_oracle)
    report.add_chart(chart("Regret against the oracle", "cumulative regret", summary,
                           [](const inf::AlgorithmSummary& s) -> const inf::Curve* {
                             return s.regret_oracle ? &*s.regret_oracle : nullptr;
                           }));
  if (!summary.empty() && summary.front().regret_fixed)
    report.add_chart(chart("Weak regret against the best fixed seed set", "cumulative regret", summary,
                           [](const inf::AlgorithmSummary& s) -> const inf::Curve* {
                             return s.regret_fixed ? &*s.regret_fixed : nullptr;
                           }));
  return report;
}

}  // namespace

void write_influence_outputs(OutputDir& out, const InfluenceRunDescription& desc, const Results& res,
                             const inf::ExperimentResult& result, const std::vector<inf::AlgorithmSummary>& summary) {
  res.write(out);
  out.write("steps.csv", steps_table(summary).to_csv());
  out.write("runs.csv", runs_table(result).to_csv());
  report(desc, result, summary).write(out);
}

std::string render_influence_summary(const InfluenceRunDescription& desc, const Results& res,
                                     const std::vector<inf::AlgorithmSummary>& summary, const std::string& format) {
  if (format == "json") return res.json_text();
  const TextTable t = summary_table(summary);
  if (format == "csv") return t.to_csv();
  const auto& c = desc.config;
  return "graph " + desc.graph + " (" + std::to_string(desc.nodes) + " nodes, " + std::to_string(desc.edges) +
         " edges), dynamics " + inf::to_string(c.dynamics.model) + ", k " + std::to_string(c.k) + ", " +
         std::to_string(c.steps) + " steps, " + std::to_string(c.runs) + " run(s), seed " + std::to_string(c.seed) +
         "\n\n" + t.render();
}

}  // namespace dmlkit::app
