// Merging the cells' results and the sweep report (see collect.h).
#include "sweep/collect.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results_table.h"
#include "core/stats.h"
#include "core/table.h"

namespace fs = std::filesystem;

namespace dmlkit::sweep {

using nlohmann::ordered_json;

namespace {

bool is_seed_axis(const std::string& name) { return name == "seed"; }

std::string value_text(const ordered_json& v) { return json_cell(v); }

}  // namespace

std::vector<std::string> numeric_axes(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& a : plan.axes) {
    if (is_seed_axis(a)) continue;
    if (std::find(plan.spread_over.begin(), plan.spread_over.end(), a) != plan.spread_over.end()) continue;
    bool numeric = !plan.cells.empty();
    for (const auto& c : plan.cells)
      if (!c.values.contains(a) || !c.values[a].is_number()) numeric = false;
    if (numeric) out.push_back(a);
  }
  return out;
}

Collected collect_sweep(const std::string& dir, const Plan& plan) {
  Collected c;
  c.cells = plan.cells.size();
  std::string kind;
  bool mixed = false;
  std::vector<std::pair<const Cell*, ordered_json>> loaded;
  for (const auto& cell : plan.cells) {
    if (!cell_finished(dir, cell.name)) {
      c.missing.push_back(cell.name);
      const CellState s = read_state(dir, cell.name);
      if (s.status == "failed") c.failed.push_back(cell.name + ": " + s.error);
      continue;
    }
    const std::string path = (fs::path(cell_dir(dir, cell.name)) / "results.json").string();
    ordered_json j = ordered_json::parse(read_text_file(path), nullptr, false);
    if (j.is_discarded()) throw Error(path, 0, "", "not valid JSON");
    const std::string k = j.value("record_kind", "record");
    if (kind.empty()) kind = k;
    if (k != kind) mixed = true;
    loaded.emplace_back(&cell, std::move(j));
  }
  c.results = Results("sweep collect", mixed || kind.empty() ? "record" : kind);
  auto& in = c.results.inputs();
  in["sweep_file"] = plan.sweep_file;
  in["command"] = fmt::to_string(fmt::join(plan.command, " "));
  in["args"] = plan.args;
  ordered_json axes = ordered_json::object();
  for (const auto& a : plan.axes) {
    ordered_json values = ordered_json::array();
    for (const auto& cell : plan.cells) {
      const auto& v = cell.values[a];
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    axes[a] = std::move(values);
  }
  in["axes"] = std::move(axes);
  in["cells"] = plan.cells.size();
  in["collected"] = loaded.size();
  in["missing"] = c.missing;
  for (const auto& [cell, j] : loaded) {
    if (!j.contains("records") || !j["records"].is_array()) continue;
    const std::string prefix = "cells/" + cell->name + "/";
    for (const auto& r : j["records"]) {
      const uint64_t seed = r.contains("seed") && r["seed"].is_number_unsigned() ? r["seed"].get<uint64_t>() : 0;
      ResultRecord& rec = c.results.add(r.value("name", std::string("?")), seed);
      for (const auto& a : plan.axes) {
        if (is_seed_axis(a)) continue;
        // A `policy` axis of policy records is the record's name already (its own column).
        if (a == c.results.record_kind() && value_text(cell->values[a]) == rec.name) continue;
        rec.params[a] = cell->values[a];
      }
      if (r.contains("params") && r["params"].is_object())
        for (const auto& [k, v] : r["params"].items())
          if (!rec.params.contains(k)) rec.params[k] = v;
      if (r.contains("metrics") && r["metrics"].is_object()) rec.metrics = r["metrics"];
      rec.files["cell"] = "cells/" + cell->name;
      if (r.contains("files") && r["files"].is_object())
        for (const auto& [k, v] : r["files"].items())
          rec.files[k] = v.is_string() ? ordered_json(prefix + v.get<std::string>()) : v;
    }
  }
  return c;
}

namespace {

// Numeric metrics (at least one number) that vary over the records, in first-seen order.
std::vector<std::string> chart_metrics(const Results& res) {
  std::vector<std::string> keys;
  std::map<std::string, std::pair<double, bool>> first;  // metric -> (first value, varies)
  for (const auto& r : res.records())
    for (const auto& [k, v] : r.metrics.items()) {
      if (!v.is_number()) continue;
      const double x = v.get<double>();
      auto it = first.find(k);
      if (it == first.end()) {
        first[k] = {x, false};
        keys.push_back(k);
      } else if (x != it->second.first) {
        it->second.second = true;
      }
    }
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (first[k].second) out.push_back(k);
  return out;
}

// The line a record belongs to in a chart against `x_axis`: its name plus the values of the other
// axes (not the seed, not one whose value is the record's name, e.g. a policy axis).
std::string line_label(const ResultRecord& r, const Plan& plan, const std::string& x_axis) {
  std::string label = r.name;
  for (const auto& a : plan.axes) {
    if (a == x_axis || is_seed_axis(a) || !r.params.contains(a)) continue;
    if (std::find(plan.spread_over.begin(), plan.spread_over.end(), a) != plan.spread_over.end()) continue;
    const std::string v = value_text(r.params[a]);
    if (v == r.name) continue;
    label += ", " + a + "=" + v;
  }
  return label;
}

}  // namespace

TextTable compact_summary(const Results& res) {
  const auto groups = res.summary();
  std::vector<std::string> params;
  for (const auto& g : groups)
    for (const auto& [k, v] : g.params.items())
      if (std::find(params.begin(), params.end(), k) == params.end()) params.push_back(k);
  std::vector<std::string> all_metrics;
  for (const auto& g : groups)
    for (const auto& ms : g.metrics)
      if (std::find(all_metrics.begin(), all_metrics.end(), ms.metric) == all_metrics.end())
        all_metrics.push_back(ms.metric);
  bool spread = false;  // an X_sd column per metric only when some configuration ran more than once
  for (const auto& g : groups) spread = spread || g.runs > 1;
  // One precision per column (core/results_table.h): integers when every value is whole.
  std::vector<int> digits;
  for (const auto& k : all_metrics) {
    double largest = 0;
    bool whole = true;
    for (const auto& g : groups)
      if (const MetricSummary* ms = g.find(k)) {
        largest = std::max(largest, std::fabs(ms->stats.mean));
        for (double v : {ms->stats.mean, ms->stats.sd}) whole = whole && std::isfinite(v) && v == std::floor(v);
      }
    digits.push_back(whole ? 0 : column_digits(k, largest));
  }
  std::vector<std::string> header{res.record_kind()};
  header.insert(header.end(), params.begin(), params.end());
  header.push_back("runs");
  for (const auto& k : all_metrics) {
    header.push_back(k);
    if (spread) header.push_back(k + "_sd");
  }
  TextTable table(header);
  for (const auto& g : groups) {
    std::vector<std::string> row{g.name};
    for (const auto& k : params) row.push_back(g.params.contains(k) ? value_text(g.params[k]) : "");
    row.push_back(std::to_string(g.runs));
    for (size_t i = 0; i < all_metrics.size(); ++i) {
      const MetricSummary* ms = g.find(all_metrics[i]);
      row.push_back(ms ? fixed(ms->stats.mean, digits[i]) : "");
      if (spread) row.push_back(ms ? fixed(ms->stats.sd, digits[i]) : "");
    }
    table.add_row(std::move(row));
  }
  return table;
}

HtmlReport sweep_report(const Plan& plan, const Collected& c) {
  const Results& res = c.results;
  const std::string command = fmt::to_string(fmt::join(plan.command, " "));
  HtmlReport rep("dmlkit sweep: " + command);
  std::vector<std::pair<std::string, std::string>> facts{
      {"Sweep file", plan.sweep_file},
      {"Command", "dmlkit " + command},
      {"Cells", std::to_string(c.cells) + " (" + std::to_string(c.cells - c.missing.size()) + " collected, " +
                    std::to_string(c.missing.size()) + " missing)"},
      {"Records", std::to_string(res.records().size())}};
  std::string fixed_args;
  for (const auto& [k, v] : plan.args.items()) fixed_args += (fixed_args.empty() ? "" : ", ") + k + "=" + value_text(v);
  if (!fixed_args.empty()) facts.emplace_back("Fixed arguments", fixed_args);
  for (const auto& [a, values] : res.inputs()["axes"].items()) {
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + value_text(v);
    facts.emplace_back("Axis " + a, list);
  }
  rep.add_facts(facts);
  if (!c.failed.empty()) {
    rep.add_heading("Failed cells");
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : c.failed) rows.push_back({f});
    rep.add_table({"cell: last error"}, rows);
  }

  const auto metrics = chart_metrics(res);
  const auto xs = numeric_axes(plan);
  if (!xs.empty() && !metrics.empty()) {
    rep.add_heading("Metrics against each swept parameter");
    const std::string over = plan.spread_over.empty() ? "seeds" : fmt::to_string(fmt::join(plan.spread_over, " and "));
    rep.add_paragraph("One line per " + res.record_kind() +
                      " (and per value of the other axes): the mean over " + over +
                      ", the shaded band from the smallest to the largest value. Metrics that are the same in "
                      "every record are not drawn.");
  }
  for (const auto& x_axis : xs) {
    for (const auto& m : metrics) {
      // label -> x -> values over seeds (and any other record of that line and x)
      std::vector<std::string> labels;
      std::map<std::string, std::map<double, std::vector<double>>> points;
      for (const auto& r : res.records()) {
        if (!r.params.contains(x_axis) || !r.params[x_axis].is_number()) continue;
        auto it = r.metrics.find(m);
        if (it == r.metrics.end() || !it->is_number()) continue;
        const std::string label = line_label(r, plan, x_axis);
        if (!points.count(label)) labels.push_back(label);
        points[label][r.params[x_axis].get<double>()].push_back(it->get<double>());
      }
      if (labels.empty()) continue;
      LineChart chart;
      chart.title = m + " against " + x_axis;
      chart.x_title = x_axis;
      chart.y_title = m;
      for (const auto& label : labels) {
        ChartSeries s;
        s.label = label;
        bool spread = false;
        for (const auto& [x, ys] : points[label]) {
          const Summary st = summarize(ys);
          s.x.push_back(x);
          s.y.push_back(st.mean);
          s.y_low.push_back(st.min);  // the spread over seeds, drawn as a shaded band
          s.y_high.push_back(st.max);
          spread = spread || ys.size() > 1;
        }
        if (!spread) s.y_low.clear(), s.y_high.clear();
        chart.series.push_back(std::move(s));
      }
      rep.add_chart(std::move(chart));
    }
  }

  rep.add_heading("Summary over seeds");
  rep.add_table(compact_summary(res), "mean (and X_sd, the sample standard deviation) over the seeds of each configuration; every record is in "
                       "records.csv, the full summary (mean, sd, min, max) in summary.csv.");
  if (!c.missing.empty()) {
    rep.add_heading("Cells without results");
    std::vector<std::vector<std::string>> rows;
    for (const auto& m : c.missing) rows.push_back({m});
    rep.add_table({"cell"}, rows);
  }
  return rep;
}

}  // namespace dmlkit::sweep
