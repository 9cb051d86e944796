// `dmlkit diff A/results.json B/results.json` (issue 20): two runs' summaries side by side. Groups
// are matched by (name, params) as core/results.h groups records; for every metric both have, the
// two means, the change, and whether the change exceeds the spread over seeds.
// Beyond the spread [A]: |mean_B - mean_A| > 2 x sqrt(sd_A^2 / n_A + sd_B^2 / n_B), i.e. more than
// two standard errors of the difference (Welch); with one run on each side there is no spread, and
// the verdict says so ("one run") instead of guessing.
// Before the metrics, what the two runs were given (issue 44): the command, the dmlkit version,
// every field of `inputs` (workload, profile, cluster, knobs, ...) and the SHA-256 of every input
// file that differ, and a loud warning when the workloads differ: a change between runs of
// different workloads is not the effect of the policy or knob alone.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/table.h"

namespace dmlkit {

struct MetricDiff {
  std::string name;                                                  // policy, scheduler, ...
  nlohmann::ordered_json params = nlohmann::ordered_json::object();  // what else tells groups apart
  std::string metric;
  bool in_a = false, in_b = false;  // a group or metric present on one side only
  double a_mean = 0, b_mean = 0, a_sd = 0, b_sd = 0;
  size_t a_n = 0, b_n = 0;
  double change = 0;      // b_mean - a_mean
  double change_pct = 0;  // 100 x change / |a_mean| (0 when a_mean is 0)
  // "beyond spread", "within spread", "one run" (no spread to compare with), "only in A", "only in B".
  std::string verdict;
};

// One thing the two runs were given differently.
struct InputDiff {
  // "command", "version", "inputs.<dotted path>" or "file <path>" (an input file's contents).
  std::string field;
  // The value on each side: a JSON scalar as a table cell, a structure as compact JSON, a file as
  // "sha256:<first 12 hex digits>"; "(none)" when that side has no such field or did not read it.
  std::string a, b;
};

struct InputComparison {
  std::vector<InputDiff> differences;
  // The runs simulated or read different workloads: an `inputs` field that names one (workload,
  // workload_file, trace, graph, dataset, experiment, match, stream) differs, or a data file both
  // read has different contents. `workload_reason` says which, for the warning.
  bool workloads_differ = false;
  std::string workload_reason;
};

// What differs between the inputs of a and b (results.json objects as load_results_json returns).
InputComparison diff_inputs(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);
// One row per difference: field, A, B.
TextTable input_diff_table(const InputComparison& c);
// {"workloads_differ": bool, "workload_reason": "...", "differences": [{"field", "a", "b"}]}.
nlohmann::ordered_json input_diff_json(const InputComparison& c);

// Reads a results.json (Error naming the file when it is missing, not JSON, or not a dmlkit results
// file of schema version 2).
nlohmann::ordered_json load_results_json(const std::string& path);
// Every (group, metric) of a and b, in a's order then b's extra groups.
std::vector<MetricDiff> diff_results(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);
// One row per MetricDiff: name, params, metric, A, B, change, change_%, verdict.
TextTable diff_table(const std::vector<MetricDiff>& diffs);
nlohmann::ordered_json diff_json(const std::vector<MetricDiff>& diffs);

}  // namespace dmlkit
