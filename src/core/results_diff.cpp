#include "core/results_diff.h"

#include <cmath>
#include <map>

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

// A value as one cell: strings bare, numbers and booleans as JSON, structures as compact JSON cut
// to a readable width.
std::string input_cell(const ordered_json& v) {
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  constexpr size_t kMaxCell = 72;
  if (text.size() > kMaxCell) text = text.substr(0, kMaxCell - 3) + "...";
  return text;
}

// `inputs` flattened to dotted paths (arrays stay one value: a list of policies is one input).
void flatten(const ordered_json& v, const std::string& path, std::vector<std::pair<std::string, ordered_json>>& out) {
  if (v.is_object() && !v.empty()) {
    for (const auto& [k, child] : v.items()) flatten(child, path.empty() ? k : path + "." + k, out);
    return;
  }
  out.emplace_back(path, v);
}

const ordered_json* find_flat(const std::vector<std::pair<std::string, ordered_json>>& flat, const std::string& path) {
  for (const auto& [p, v] : flat)
    if (p == path) return &v;
  return nullptr;
}

// The last component of a dotted path names a workload.
bool names_workload(const std::string& path) {
  const size_t dot = path.rfind('.');
  const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
  for (const char* w : {"workload", "workload_file", "trace", "graph", "dataset", "experiment", "match", "stream"})
    if (leaf == w) return true;
  return false;
}

// path -> sha256 of the files an invocation read ({} when the run has no invocation record).
std::map<std::string, std::string> input_files(const ordered_json& results) {
  std::map<std::string, std::string> files;
  if (!results.contains("invocation") || !results["invocation"].is_object()) return files;
  const ordered_json& inv = results["invocation"];
  if (!inv.contains("input_files") || !inv["input_files"].is_array()) return files;
  for (const auto& f : inv["input_files"])
    if (f.is_object() && f.contains("path") && f["path"].is_string() && f.contains("sha256") && f["sha256"].is_string())
      files[f["path"].get<std::string>()] = f["sha256"].get<std::string>();
  return files;
}

std::string short_hash(const std::string& sha) { return "sha256:" + sha.substr(0, 12); }

}  // namespace

InputComparison diff_inputs(const ordered_json& a, const ordered_json& b) {
  InputComparison c;
  const std::string none = "(none)";
  auto top = [&](const char* key) {
    const std::string va = a.contains(key) ? input_cell(a[key]) : none;
    const std::string vb = b.contains(key) ? input_cell(b[key]) : none;
    if (va != vb) c.differences.push_back({key, va, vb});
  };
  top("command");
  top("version");
  std::vector<std::pair<std::string, ordered_json>> fa, fb;
  if (a.contains("inputs")) flatten(a["inputs"], "", fa);
  if (b.contains("inputs")) flatten(b["inputs"], "", fb);
  auto note = [&](const std::string& path, const ordered_json* va, const ordered_json* vb) {
    const std::string field = "inputs." + path;
    c.differences.push_back({field, va ? input_cell(*va) : none, vb ? input_cell(*vb) : none});
    if (names_workload(path) && !c.workloads_differ) {
      c.workloads_differ = true;
      c.workload_reason = field + " is " + c.differences.back().a + " in A, " + c.differences.back().b + " in B";
    }
  };
  for (const auto& [path, va] : fa) {
    const ordered_json* vb = find_flat(fb, path);
    if (vb == nullptr || *vb != va) note(path, &va, vb);
  }
  for (const auto& [path, vb] : fb)
    if (find_flat(fa, path) == nullptr) note(path, nullptr, &vb);
  const auto files_a = input_files(a), files_b = input_files(b);
  for (const auto& [path, sha] : files_a) {
    const auto it = files_b.find(path);
    if (it == files_b.end()) {
      c.differences.push_back({"file " + path, short_hash(sha), "(not read)"});
    } else if (it->second != sha) {
      c.differences.push_back({"file " + path, short_hash(sha), short_hash(it->second)});
      if (!c.workloads_differ) {
        c.workloads_differ = true;
        c.workload_reason = "the file " + path + " has different contents in A and B";
      }
    }
  }
  for (const auto& [path, sha] : files_b)
    if (!files_a.contains(path)) c.differences.push_back({"file " + path, "(not read)", short_hash(sha)});
  return c;
}

TextTable input_diff_table(const InputComparison& c) {
  TextTable t({"input", "A", "B"});
  for (const auto& d : c.differences) t.add_row({d.field, d.a, d.b});
  return t;
}

ordered_json input_diff_json(const InputComparison& c) {
  ordered_json list = ordered_json::array();
  for (const auto& d : c.differences) list.push_back({{"field", d.field}, {"a", d.a}, {"b", d.b}});
  return {{"workloads_differ", c.workloads_differ}, {"workload_reason", c.workload_reason}, {"differences", list}};
}

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
