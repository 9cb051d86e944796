// Results: records -> results.json, records.csv, summary.csv (see results.h).
#include "core/results.h"

#include "core/provenance.h"

#include <algorithm>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/table.h"

#ifndef DMLKIT_VERSION
#define DMLKIT_VERSION "unknown"
#endif

namespace dmlkit {

using nlohmann::ordered_json;

namespace {

// Keys of `objects` (each a JSON object) in first-seen order.
template <typename Get>
std::vector<std::string> union_keys(const std::vector<ResultRecord>& records, Get get) {
  std::vector<std::string> keys;
  for (const auto& r : records)
    for (const auto& [k, v] : get(r).items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  return keys;
}

ordered_json stats_json(const MetricSummary& m, size_t runs) {
  ordered_json j;
  j["mean"] = m.stats.mean;
  j["sd"] = m.stats.sd;
  j["min"] = m.stats.min;
  j["max"] = m.stats.max;
  if (m.count != runs) j["n"] = m.count;
  return j;
}

}  // namespace

std::string json_cell(const ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

const MetricSummary* SummaryGroup::find(const std::string& metric) const {
  for (const auto& m : metrics)
    if (m.metric == metric) return &m;
  return nullptr;
}

Results::Results(std::string command, std::string record_kind)
    : command_(std::move(command)), record_kind_(std::move(record_kind)) {}

ResultRecord& Results::add(std::string name, uint64_t seed) {
  ResultRecord r;
  r.name = std::move(name);
  r.seed = seed;
  records_.push_back(std::move(r));
  return records_.back();
}

std::vector<SummaryGroup> Results::summary() const {
  std::vector<SummaryGroup> groups;
  std::vector<std::vector<const ResultRecord*>> members;
  for (const auto& r : records_) {
    size_t g = 0;
    while (g < groups.size() && !(groups[g].name == r.name && groups[g].params == r.params)) ++g;
    if (g == groups.size()) {
      groups.push_back({r.name, r.params, 0, {}});
      members.emplace_back();
    }
    ++groups[g].runs;
    members[g].push_back(&r);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> keys;
    for (const auto* r : members[g])
      for (const auto& [k, v] : r->metrics.items())
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    for (const auto& k : keys) {
      std::vector<double> values;
      for (const auto* r : members[g]) {
        auto it = r->metrics.find(k);
        if (it == r->metrics.end()) continue;
        if (it->is_number()) values.push_back(it->get<double>());
        if (it->is_boolean()) values.push_back(it->get<bool>() ? 1.0 : 0.0);
      }
      if (values.empty()) continue;
      groups[g].metrics.push_back({k, values.size(), summarize(values)});
    }
  }
  return groups;
}

ordered_json Results::to_json() const {
  ordered_json j;
  j["schema_version"] = kResultsSchemaVersion;
  j["tool"] = "dmlkit";
  j["version"] = DMLKIT_VERSION;
  j["command"] = command_;
  if (auto inv = invocation_json(); !inv.is_null()) j["invocation"] = std::move(inv);
  j["record_kind"] = record_kind_;
  j["inputs"] = inputs_;
  ordered_json records = ordered_json::array();
  for (const auto& r : records_) {
    ordered_json x;
    x["name"] = r.name;
    x["seed"] = r.seed;
    if (!r.params.empty()) x["params"] = r.params;
    x["metrics"] = r.metrics;
    if (!r.files.empty()) x["files"] = r.files;
    if (!r.detail.empty()) x["detail"] = r.detail;
    records.push_back(std::move(x));
  }
  j["records"] = std::move(records);
  ordered_json summary = ordered_json::array();
  for (const auto& g : this->summary()) {
    ordered_json x;
    x["name"] = g.name;
    if (!g.params.empty()) x["params"] = g.params;
    x["runs"] = g.runs;
    ordered_json m = ordered_json::object();
    for (const auto& s : g.metrics) m[s.metric] = stats_json(s, g.runs);
    x["metrics"] = std::move(m);
    summary.push_back(std::move(x));
  }
  j["summary"] = std::move(summary);
  if (!derived_.empty()) j["derived"] = derived_;
  return j;
}

std::string Results::json_text() const { return to_json().dump(2) + "\n"; }

TextTable Results::records_table() const {
  const auto params = union_keys(records_, [](const ResultRecord& r) -> const ordered_json& { return r.params; });
  const auto metrics = union_keys(records_, [](const ResultRecord& r) -> const ordered_json& { return r.metrics; });
  std::vector<std::string> header{record_kind_, "seed"};
  header.insert(header.end(), params.begin(), params.end());
  header.insert(header.end(), metrics.begin(), metrics.end());
  TextTable t(header);
  for (const auto& r : records_) {
    std::vector<std::string> row{r.name, std::to_string(r.seed)};
    for (const auto& k : params) row.push_back(r.params.contains(k) ? json_cell(r.params[k]) : "");
    for (const auto& k : metrics) row.push_back(r.metrics.contains(k) ? json_cell(r.metrics[k]) : "");
    t.add_row(std::move(row));
  }
  return t;
}

TextTable Results::summary_table() const {
  const auto groups = summary();
  const auto params = union_keys(records_, [](const ResultRecord& r) -> const ordered_json& { return r.params; });
  std::vector<std::string> metrics;
  for (const auto& g : groups)
    for (const auto& m : g.metrics)
      if (std::find(metrics.begin(), metrics.end(), m.metric) == metrics.end()) metrics.push_back(m.metric);
  std::vector<std::string> header{record_kind_};
  header.insert(header.end(), params.begin(), params.end());
  header.push_back("runs");
  for (const auto& m : metrics)
    for (const char* s : {"_mean", "_sd", "_min", "_max"}) header.push_back(m + s);
  TextTable t(header);
  auto cell = [](double v) { return ordered_json(v).dump(); };
  for (const auto& g : groups) {
    std::vector<std::string> row{g.name};
    for (const auto& k : params) row.push_back(g.params.contains(k) ? json_cell(g.params[k]) : "");
    row.push_back(std::to_string(g.runs));
    for (const auto& k : metrics) {
      const MetricSummary* m = g.find(k);
      if (m == nullptr) {
        row.insert(row.end(), 4, "");
        continue;
      }
      row.push_back(cell(m->stats.mean));
      row.push_back(cell(m->stats.sd));
      row.push_back(cell(m->stats.min));
      row.push_back(cell(m->stats.max));
    }
    t.add_row(std::move(row));
  }
  return t;
}

void Results::write(OutputDir& out) const {
  out.write("results.json", json_text());
  out.write("records.csv", records_table().to_csv());
  out.write("summary.csv", summary_table().to_csv());
}

}  // namespace dmlkit
