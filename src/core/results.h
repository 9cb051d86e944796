// The one results writer of every family (docs/results-schema.md). A command collects one record
// per (policy/scheduler/algorithm/variant) x seed -- its name, seed, optional parameters that tell
// two configurations of the same name apart (angle_deg, buffer_size, ...), and scalar metrics --
// and Results derives everything else from those records: results.json (the common envelope
// schema_version, tool, version, command, inputs, records, summary), records.csv and summary.csv
// (the same records and summary as CSV), and the tables the HTML report shows. The summary groups
// records by (name, params), in first-seen order, and gives each numeric metric's mean, sample
// standard deviation, min and max over the group's records (core/stats.h summarize()).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"

namespace dmlkit {

class OutputDir;
class TextTable;

// Version of the results.json layout; bump it when a field changes meaning, moves or disappears.
// 1: each family's own layout; 2: the common envelope of docs/results-schema.md.
inline constexpr int kResultsSchemaVersion = 2;

struct ResultRecord {
  std::string name;  // the policy, scheduler, algorithm, variant or strategy
  uint64_t seed = 0;
  // What else identifies the configuration (e.g. {"angle_deg": 30}); part of the summary key.
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  // Scalars only (number, bool or null); names carry units. Keys in the order they were set.
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  // Detail files of this record in the output folder ({"jobs_csv": "jobs-fifo-seed1.csv"}).
  nlohmann::ordered_json files = nlohmann::ordered_json::object();
  // Non-scalar data of this record (per-iteration times, curves); not summarised.
  nlohmann::ordered_json detail = nlohmann::ordered_json::object();
};

// Mean, sd, min and max of one metric over a group's records that have a number (or bool) for it.
struct MetricSummary {
  std::string metric;
  size_t count = 0;
  Summary stats;
};

struct SummaryGroup {
  std::string name;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  size_t runs = 0;  // records in the group
  std::vector<MetricSummary> metrics;
  // The summary of `metric`, or nullptr if no record of the group has a number for it.
  const MetricSummary* find(const std::string& metric) const;
};

class Results {
 public:
  // `record_kind` names what a record's name is ("policy", "scheduler", "algorithm", ...).
  Results(std::string command, std::string record_kind);

  nlohmann::ordered_json& inputs() { return inputs_; }
  const nlohmann::ordered_json& inputs() const { return inputs_; }
  // Family-specific results computed from several records (critical angles, lower bounds, ...);
  // written as "derived" when not empty.
  nlohmann::ordered_json& derived() { return derived_; }
  const nlohmann::ordered_json& derived() const { return derived_; }

  // Appends a record; the reference stays valid until the next add().
  ResultRecord& add(std::string name, uint64_t seed);
  const std::vector<ResultRecord>& records() const { return records_; }
  const std::string& command() const { return command_; }
  const std::string& record_kind() const { return record_kind_; }

  // Records grouped by (name, params) in first-seen order, each metric summarised.
  std::vector<SummaryGroup> summary() const;

  nlohmann::ordered_json to_json() const;
  // to_json().dump(2) plus a newline: the bytes of results.json.
  std::string json_text() const;
  // One row per record: name (column named record_kind), seed, params..., metrics...
  TextTable records_table() const;
  // One row per group: name, params..., runs, then <metric>_mean, _sd, _min, _max per metric.
  TextTable summary_table() const;

  // Writes results.json, records.csv and summary.csv into `out`.
  void write(OutputDir& out) const;

 private:
  std::string command_;
  std::string record_kind_;
  nlohmann::ordered_json inputs_ = nlohmann::ordered_json::object();
  nlohmann::ordered_json derived_ = nlohmann::ordered_json::object();
  std::vector<ResultRecord> records_;
};

// A JSON scalar as a CSV/table cell: numbers as in results.json, true/false, empty for null.
std::string json_cell(const nlohmann::ordered_json& v);

}  // namespace dmlkit
