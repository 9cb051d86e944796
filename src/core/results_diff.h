// `dmlkit diff A/results.json B/results.json` (issue 20): two runs' summaries side by side. Groups
// are matched by (name, params) as core/results.h groups records; for every metric both have, the
// two means, the change, and whether the change exceeds the spread over seeds.
// Beyond the spread [A]: |mean_B - mean_A| > 2 x sqrt(sd_A^2 / n_A + sd_B^2 / n_B), i.e. more than
// two standard errors of the difference (Welch); with one run on each side there is no spread, and
// the verdict says so ("one run") instead of guessing.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/table.h"

namespace dmlkit {

struct MetricDiff {
  std::string name;                                                    // policy, scheduler, ...
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

// Reads a results.json (Error naming the file when it is missing, not JSON, or not a dmlkit results
// file of schema version 2).
nlohmann::ordered_json load_results_json(const std::string& path);
// Every (group, metric) of a and b, in a's order then b's extra groups.
std::vector<MetricDiff> diff_results(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);
// One row per MetricDiff: name, params, metric, A, B, change, change_%, verdict.
TextTable diff_table(const std::vector<MetricDiff>& diffs);
nlohmann::ordered_json diff_json(const std::vector<MetricDiff>& diffs);

}  // namespace dmlkit
