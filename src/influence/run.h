// `dmlkit influence run` as a library call: the RSB experiment (spec C.4/C.5) on one network.
// A RunSpec names the network, the dynamics, the algorithms and their knobs; check() validates it
// before any work; run() loads the network, runs the experiment and returns the Results
// (docs/results-schema.md, "influence"), the detail tables and the report, without touching the
// file system other than to read the graph. The CLI (apps/dmlkit/influence/) and Python
// (dmlkit.influence.run) fill the spec and print or write what run() returns.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/html_report.h"
#include "core/knobs.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"
#include "influence/experiment.h"
#include "influence/experiment_stats.h"
#include "influence/graph.h"

namespace dmlkit::influence {

struct RunSpec {
  // The network: "NetHEPT" (bundled), "er:nodes=N,degree=D", "ba:nodes=N,m=M", or an edge-list file.
  std::string graph = "NetHEPT";
  std::string graph_format = "auto";    // auto, header ('n m' first line) or edges
  uint64_t max_nodes = 0;               // a graph file's node limit (core/edge_file.h; 0: its default)
  std::string data_dir;                 // bundled data; empty: default_graph_data_dir()
  std::string dynamics = "trivalency";  // probability model: trivalency, weighted-cascade, fluctuating, static
  int k = 20;                           // seeds per step
  int steps = 100;                      // time steps T
  int runs = 1;                         // independent runs (split r of the seed)
  uint64_t seed = 1;                    // the same seed gives the same results
  std::vector<std::string> algorithms{"rsb", "random", "static-greedy", "cucb", "oracle"};
  KnobValues algorithm_params;  // knobs of the algorithms by name ("rsb.gamma" -> "0.3"); unset: declared default
  std::vector<double> trivalency_levels{0.1, 0.01, 0.001};  // trivalency: the probability levels
  double fr_max = 0.1;                                      // fluctuating: upper bound of p
  double fr_swing = 0.3;  // fluctuating: total change of p over the run (rate per step = swing / steps)
  // Per-step probability that a present edge disappears, and the initial and long-run fraction of
  // edges present; unset: 0.05 and 0.9 under weighted-cascade (its topology churns [A]), else 0 and 1.
  std::optional<double> edge_churn, edge_presence;
  double node_churn = 0;               // per-step probability that a present node disappears
  double node_presence = 1;            // initial and long-run fraction of nodes present
  bool best_fixed = true;              // compute the best fixed seed set in hindsight (weak regret)
  size_t hindsight_rr_sets = 200'000;  // RR sets pooled over the run for the best fixed set

  // The runner's configuration (dynamics model parsed, weighted-cascade defaults applied).
  ExperimentConfig experiment() const;
  // results.json's "inputs": the spec and the loaded network's name and size.
  nlohmann::ordered_json inputs(const EdgeList& graph) const;
};

// The knobs of the first release, each with an option of its own (`--gamma` sets rsb.gamma) and
// its own key in results.json's inputs.algorithm_params ("rsb_gamma"). A knob added since is set
// with --algorithm-param NAME=VALUE (Python: algorithm_param={NAME: VALUE}) and keyed by its name.
struct NamedKnob {
  const char* knob;        // "rsb.gamma"
  const char* option;      // "gamma" (the CLI's --gamma, Python's gamma=)
  const char* inputs_key;  // "rsb_gamma"
};
std::span<const NamedKnob> named_knobs();

// Throws Error naming the field (as its CLI option) for anything out of range, an unknown name
// (dynamics, graph format, algorithm, knob) or a bad knob value; what depends on the network (k
// against its nodes, static dynamics' probabilities) is checked by run() once it is loaded.
void check(const RunSpec& spec);

struct RunOutput {
  ExperimentConfig config;  // what ran (RunSpec::experiment())
  std::string graph_name;
  uint32_t nodes = 0;
  size_t edges = 0;
  ExperimentResult result;
  std::vector<AlgorithmSummary> summary;
  Results results{"influence run", "algorithm"};  // results.json, records.csv, summary.csv
  TextTable steps{std::vector<std::string>{}};    // steps.csv: per-step means and sds of every algorithm
  TextTable runs{std::vector<std::string>{}};     // runs.csv: activated users per (algorithm, run, step)
  HtmlReport report{""};
  std::vector<std::string> notes;  // where the published effect is not to be expected (printed as notes)

  // What the CLI prints: the summary as a table (with a header line), JSON (results.json) or CSV.
  std::string summary_text(const std::string& format) const;
  // results.json, records.csv, summary.csv, steps.csv, runs.csv and report.html into `out`.
  void write(OutputDir& out) const;
};

// Called after every step of every run: the steps done (of runs x steps) and a detail ("run 2").
using RunProgress = std::function<void(double done, const std::string& detail)>;

RunOutput run(const RunSpec& spec, const RunProgress& progress = {});

}  // namespace dmlkit::influence
