#include "core/results_diff.h"

#include <cmath>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/results.h"

namespace dmlkit {
namespace {

using nlohmann::ordered_json;

struct Stat {
  double mean = 0, sd = 0;
  size_t n = 0;
};

std::string group_key(const ordered_json& g) {
  return g.value("name", "") + "\n" + (g.contains("params") ? g["params"].dump() : "{}");
}

// A statistic of a metric: 0 when absent, NaN when null (results.json writes a NaN as null).
double number_or_nan(const ordered_json& m, const char* key) {
  if (!m.contains(key)) return 0;
  return m[key].is_null() ? std::nan("") : m[key].get<double>();
}

Stat stat_of(const ordered_json& group, const ordered_json& m) {
  Stat s;
  s.mean = number_or_nan(m, "mean");
  s.sd = number_or_nan(m, "sd");
  s.n = m.contains("n") ? m["n"].get<size_t>() : group.value("runs", size_t{1});
  return s;
}

// The shape of results.json's summary that diff_results reads, checked before it reads it: every
// group an object with a string name, a count of runs and an object of metrics, each metric an
// object with numbers (or null) for mean and sd and a count n. Error(path, field) otherwise.
void check_summary(const ordered_json& summary, const std::string& path) {
  for (size_t i = 0; i < summary.size(); ++i) {
    const ordered_json& g = summary[i];
    const std::string where = "summary[" + std::to_string(i) + "]";
    if (!g.is_object()) throw Error(path, 0, where, "not an object");
    if (g.contains("name") && !g["name"].is_string()) throw Error(path, 0, where + ".name", "not a string");
    if (g.contains("runs") && !g["runs"].is_number_unsigned()) throw Error(path, 0, where + ".runs", "not a count");
    if (!g.contains("metrics") || !g["metrics"].is_object())
      throw Error(path, 0, where + ".metrics", "missing or not an object");
    for (const auto& [metric, m] : g["metrics"].items()) {
      const std::string at = where + ".metrics." + metric;
      if (!m.is_object()) throw Error(path, 0, at, "not an object");
      for (const char* key : {"mean", "sd"})
        if (m.contains(key) && !m[key].is_number() && !m[key].is_null())
          throw Error(path, 0, at + "." + key, "not a number");
      if (m.contains("n") && !m["n"].is_number_unsigned()) throw Error(path, 0, at + ".n", "not a count");
    }
  }
}

const ordered_json* find_group(const ordered_json& summary, const std::string& key) {
  for (const auto& g : summary)
    if (group_key(g) == key) return &g;
  return nullptr;
}

std::string verdict(const Stat& a, const Stat& b) {
  if (a.n < 2 && b.n < 2) return "one run";
  const double se = std::sqrt((a.n > 0 ? a.sd * a.sd / static_cast<double>(a.n) : 0) +
                              (b.n > 0 ? b.sd * b.sd / static_cast<double>(b.n) : 0));
  const double change = std::fabs(b.mean - a.mean);
  if (se == 0) return change == 0 ? "within spread" : "beyond spread";
  return change > 2 * se ? "beyond spread" : "within spread";
}

std::string number(double v) {
  if (!std::isfinite(v)) return "";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fixed(v, 0);  // counts: 160, not 160.000
  const double a = std::fabs(v);
  return fixed(v, a >= 1000 ? 1 : a >= 1 ? 3 : 4);
}

}  // namespace

ordered_json load_results_json(const std::string& path) {
  ordered_json j;
  try {
    j = ordered_json::parse(read_text_file(path));
  } catch (const ordered_json::parse_error& e) {
    throw Error(path, 0, "", std::string("not valid JSON: ") + e.what());
  }
  // Compared, never converted: a field of the wrong type is a refusal, not an exception.
  if (!j.is_object() || !j.contains("tool") || j["tool"] != "dmlkit" || !j.contains("summary") ||
      !j["summary"].is_array())
    throw Error(path, 0, "", "not a dmlkit results.json (no tool \"dmlkit\" and summary)");
  if (!j.contains("schema_version") || j["schema_version"] != kResultsSchemaVersion)
    throw Error(path, 0, "schema_version",
                "is " + j.value("schema_version", ordered_json(0)).dump() + ", this dmlkit reads " +
                    std::to_string(kResultsSchemaVersion));
  if (j.contains("command") && !j["command"].is_string()) throw Error(path, 0, "command", "not a string");
  check_summary(j["summary"], path);
  return j;
}

std::vector<MetricDiff> diff_results(const ordered_json& a, const ordered_json& b) {
  std::vector<MetricDiff> out;
  auto base = [](const ordered_json& g) {
    MetricDiff d;
    d.name = g.value("name", "");
    if (g.contains("params")) d.params = g["params"];
    return d;
  };
  // A metric of group g that A lacks (the group or the metric).
  auto only_in_b = [&](const ordered_json& g, const std::string& metric, const ordered_json& mb) {
    MetricDiff d = base(g);
    d.metric = metric;
    d.in_b = true;
    const Stat sb = stat_of(g, mb);
    d.b_mean = sb.mean, d.b_sd = sb.sd, d.b_n = sb.n;
    d.verdict = "only in B";
    out.push_back(std::move(d));
  };
  for (const auto& ga : a["summary"]) {
    const ordered_json* gb = find_group(b["summary"], group_key(ga));
    for (const auto& [metric, ma] : ga["metrics"].items()) {
      MetricDiff d = base(ga);
      d.metric = metric;
      d.in_a = true;
      const Stat sa = stat_of(ga, ma);
      d.a_mean = sa.mean, d.a_sd = sa.sd, d.a_n = sa.n;
      if (gb == nullptr || !(*gb)["metrics"].contains(metric)) {
        d.verdict = "only in A";
        out.push_back(std::move(d));
        continue;
      }
      d.in_b = true;
      const Stat sb = stat_of(*gb, (*gb)["metrics"][metric]);
      d.b_mean = sb.mean, d.b_sd = sb.sd, d.b_n = sb.n;
      d.change = sb.mean - sa.mean;
      d.change_pct = sa.mean != 0 ? 100.0 * d.change / std::fabs(sa.mean) : 0;
      d.verdict = verdict(sa, sb);
      out.push_back(std::move(d));
    }
    if (gb != nullptr)
      for (const auto& [metric, mb] : (*gb)["metrics"].items())
        if (!ga["metrics"].contains(metric)) only_in_b(*gb, metric, mb);
  }
  for (const auto& gb : b["summary"])
    if (find_group(a["summary"], group_key(gb)) == nullptr)
      for (const auto& [metric, mb] : gb["metrics"].items()) only_in_b(gb, metric, mb);
  return out;
}

TextTable diff_table(const std::vector<MetricDiff>& diffs) {
  TextTable t({"name", "params", "metric", "A", "B", "change", "change_%", "verdict"});
  for (const auto& d : diffs) {
    std::string params;
    for (const auto& [k, v] : d.params.items()) params += (params.empty() ? "" : " ") + k + "=" + json_cell(v);
    const bool both = d.in_a && d.in_b;
    t.add_row({d.name, params, d.metric, d.in_a ? number(d.a_mean) : "", d.in_b ? number(d.b_mean) : "",
               both ? number(d.change) : "", both && d.a_mean != 0 ? fixed(d.change_pct, 1) : "", d.verdict});
  }
  return t;
}

ordered_json diff_json(const std::vector<MetricDiff>& diffs) {
  ordered_json list = ordered_json::array();
  for (const auto& d : diffs) {
    ordered_json j{{"name", d.name}, {"params", d.params}, {"metric", d.metric}};
    if (d.in_a) j["a"] = {{"mean", d.a_mean}, {"sd", d.a_sd}, {"n", d.a_n}};
    if (d.in_b) j["b"] = {{"mean", d.b_mean}, {"sd", d.b_sd}, {"n", d.b_n}};
    if (d.in_a && d.in_b) {
      j["change"] = d.change;
      j["change_pct"] = d.a_mean != 0 ? ordered_json(d.change_pct) : ordered_json(nullptr);
    }
    j["verdict"] = d.verdict;
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace dmlkit
