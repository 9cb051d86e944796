// Co-location interference models; see interference.h and docs/harmony.md ("The world").
// Assumptions [A]: a server's shared resources are normalised to its capacity (one homogeneous
// server type); a task's share of an oversubscribed resource is capacity / total demand (no
// water-filling of what slowed tasks leave unused); the share does not depend on the task's role
// beyond its usage vector; Gavel's pair ratios apply between jobs that both have workers on the
// server (GPU users), raised to the mapping file's `strength`, multiplied over co-located jobs,
// and leave PS tasks alone.
#include "cluster/speed/interference.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/yaml.h"

namespace dmlkit::cluster {

namespace fs = std::filesystem;

void InterferenceModel::job_factors(const Colocation& c, std::span<double> factor, InterferenceScratch& scratch) const {
  std::vector<double>&sum_ = scratch.sum, &count_ = scratch.count, &worker_ = scratch.worker, &ps_ = scratch.ps;
  // Only the jobs present are touched (O(tasks placed), not O(jobs)): synchronous jobs keep a
  // running minimum in factor, asynchronous ones sums in sum_/count_.
  if (sum_.size() < factor.size()) {
    sum_.resize(factor.size(), 0.0);
    count_.resize(factor.size(), 0.0);
  }
  for (const auto& groups : c.servers)
    for (const TaskGroup& g : groups) {
      const auto j = static_cast<size_t>(g.job);
      factor[j] = std::numeric_limits<double>::infinity();
      sum_[j] = 0;
      count_[j] = 0;
    }
  for (const auto& groups : c.servers) {
    if (groups.empty()) continue;
    worker_.assign(groups.size(), 1.0);
    ps_.assign(groups.size(), 1.0);
    server_factors(groups, worker_, ps_, scratch);
    for (size_t i = 0; i < groups.size(); ++i) {
      const TaskGroup& g = groups[i];
      const auto j = static_cast<size_t>(g.job);
      if (g.sync) {
        if (g.workers > 0) factor[j] = std::min(factor[j], worker_[i]);
        if (g.ps > 0) factor[j] = std::min(factor[j], ps_[i]);
      } else {
        sum_[j] += g.workers * worker_[i] + g.ps * ps_[i];
        count_[j] += g.workers + g.ps;
      }
    }
  }
  for (const auto& groups : c.servers)
    for (const TaskGroup& g : groups) {
      const auto j = static_cast<size_t>(g.job);
      if (!g.sync) factor[j] = count_[j] > 0 ? sum_[j] / count_[j] : 1.0;
      if (!std::isfinite(factor[j])) factor[j] = 1.0;
    }
}

// ---- contention ------------------------------------------------------------------------------

int ContentionProfiles::find(std::string_view name) const {
  for (size_t i = 0; i < classes.size(); ++i)
    if (classes[i] == name) return static_cast<int>(i);
  return -1;
}

std::string default_contention_file(const std::string& data_dir) { return data_dir + "/harmony/contention.yaml"; }

ContentionProfiles load_contention_profiles(const std::string& path) {
  const YAML::Node root = yaml::load_file(path);
  if (!root.IsMap()) throw Error(path, 1, "", "expected a mapping with resources, capacity and types");
  yaml::check_keys(path, root, {"resources", "capacity", "types"});
  ContentionProfiles p;
  const YAML::Node res = root["resources"];
  if (!res || !res.IsSequence() || res.size() == 0)
    throw Error(path, res ? yaml::line_of(res) : 1, "resources", "expected a non-empty list of resource names");
  for (const auto& r : res) p.resources.push_back(yaml::string(path, r, "resources"));
  const std::set<std::string> known(p.resources.begin(), p.resources.end());
  if (known.size() != p.resources.size()) throw Error(path, yaml::line_of(res), "resources", "a resource is listed twice");
  auto vec = [&](const YAML::Node& m, const std::string& field, double lo, double hi, double dflt) {
    std::vector<double> v(p.resources.size(), dflt);
    if (!m) return v;
    if (!m.IsMap()) throw Error(path, yaml::line_of(m), field, "expected a mapping resource: value");
    yaml::check_keys(path, m, known);
    for (size_t k = 0; k < p.resources.size(); ++k)
      if (m[p.resources[k]]) v[k] = yaml::number(path, m[p.resources[k]], field + "." + p.resources[k], lo, hi);
    return v;
  };
  const YAML::Node cap = root["capacity"];
  if (!cap) throw Error(path, 1, "capacity", "missing field");
  p.capacity = vec(cap, "capacity", 1e-9, 1e9, 1.0);
  const YAML::Node types = root["types"];
  if (!types || !types.IsMap() || types.size() == 0)
    throw Error(path, types ? yaml::line_of(types) : 1, "types", "expected a mapping of job types");
  for (const auto& kv : types) {
    const std::string name = yaml::string(path, kv.first, "types");
    const YAML::Node t = kv.second;
    if (!t.IsMap()) throw Error(path, yaml::line_of(t), name, "expected a mapping with worker and ps");
    yaml::check_keys(path, t, {"worker", "ps"});
    if (!t["worker"]) throw Error(path, yaml::line_of(t), name + ".worker", "missing field");
    p.classes.push_back(name);
    p.worker.push_back(vec(t["worker"], name + ".worker", 0, 1e6, 0.0));
    p.ps.push_back(vec(t["ps"], name + ".ps", 0, 1e6, 0.0));
  }
  return p;
}

ContentionInterference::ContentionInterference(ContentionProfiles p) : p_(std::move(p)) {}

std::string ContentionInterference::known_classes() const {
  return fmt::to_string(fmt::join(p_.classes, ", "));
}

void ContentionInterference::server_factors(std::span<const TaskGroup> groups, std::span<double> worker,
                                            std::span<double> ps, InterferenceScratch& scratch) const {
  std::vector<double>&load_ = scratch.load, &share_ = scratch.share;
  const size_t K = p_.resources.size();
  load_.assign(K, 0.0);
  share_.resize(K);
  for (const TaskGroup& g : groups)
    for (size_t k = 0; k < K; ++k) load_[k] += g.workers * p_.worker[g.cls][k] + g.ps * p_.ps[g.cls][k];
  for (size_t k = 0; k < K; ++k) share_[k] = load_[k] > p_.capacity[k] ? p_.capacity[k] / load_[k] : 1.0;
  auto factor = [&](const std::vector<double>& use) {
    double f = 1.0;
    for (size_t k = 0; k < K; ++k)
      if (use[k] > 0) f = std::min(f, share_[k]);
    return f;
  };
  for (size_t i = 0; i < groups.size(); ++i) {
    worker[i] = factor(p_.worker[groups[i].cls]);
    ps[i] = factor(p_.ps[groups[i].cls]);
  }
}

// ---- gavel -----------------------------------------------------------------------------------

GavelInterference::GavelInterference(std::vector<std::string> classes, std::vector<std::vector<double>> ratio)
    : classes_(std::move(classes)), ratio_(std::move(ratio)) {}

int GavelInterference::class_of(std::string_view type_name) const {
  for (size_t i = 0; i < classes_.size(); ++i)
    if (classes_[i] == type_name) return static_cast<int>(i);
  return -1;
}

std::string GavelInterference::known_classes() const {
  return fmt::to_string(fmt::join(classes_, ", "));
}

void GavelInterference::server_factors(std::span<const TaskGroup> groups, std::span<double> worker,
                                       std::span<double> ps, InterferenceScratch& /*scratch*/) const {
  for (size_t i = 0; i < groups.size(); ++i) {
    ps[i] = 1.0;
    double f = 1.0;
    if (groups[i].workers > 0)
      for (size_t k = 0; k < groups.size(); ++k)
        if (k != i && groups[k].workers > 0 && groups[k].job != groups[i].job) f *= ratio_[groups[i].cls][groups[k].cls];
    worker[i] = f;
  }
}

std::shared_ptr<const GavelInterference> load_gavel_interference(const std::string& mapping_path) {
  const std::string& path = mapping_path;
  const YAML::Node root = yaml::load_file(path);
  if (!root.IsMap()) throw Error(path, 1, "", "expected a mapping with throughputs, gpu, strength, floor and types");
  yaml::check_keys(path, root, {"throughputs", "gpu", "strength", "floor", "types"});
  if (!root["throughputs"]) throw Error(path, 1, "throughputs", "missing field");
  fs::path tp(yaml::string(path, root["throughputs"], "throughputs"));
  if (tp.is_relative()) tp = fs::path(path).parent_path() / tp;
  const std::string gpu = root["gpu"] ? yaml::string(path, root["gpu"], "gpu") : "v100";
  const double strength = root["strength"] ? yaml::number(path, root["strength"], "strength", 0, 10) : 1.0;
  const double floor = root["floor"] ? yaml::number(path, root["floor"], "floor", 1e-6, 1) : 0.05;
  const YAML::Node types = root["types"];
  if (!types || !types.IsMap() || types.size() == 0)
    throw Error(path, types ? yaml::line_of(types) : 1, "types", "expected a mapping job type: Gavel job");
  std::vector<std::string> classes, keys;
  std::vector<long> lines;
  for (const auto& kv : types) {
    classes.push_back(yaml::string(path, kv.first, "types"));
    keys.push_back("('" + yaml::string(path, kv.second, classes.back()) + "', 1)");
    lines.push_back(yaml::line_of(kv.second));
  }
  nlohmann::json j;
  const std::string tpath = tp.string();
  try {
    j = nlohmann::json::parse(read_text_file(tpath));
  } catch (const nlohmann::json::exception& e) {
    throw Error(tpath, 0, "", std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains(gpu) || !j[gpu].is_object())
    throw Error(tpath, 0, gpu, "no throughputs for GPU '" + gpu + "'");
  const nlohmann::json& g = j[gpu];
  const size_t n = classes.size();
  std::vector<std::vector<double>> ratio(n, std::vector<double>(n, 1.0));
  for (size_t a = 0; a < n; ++a) {
    if (!g.contains(keys[a]) || !g[keys[a]].is_object())
      throw Error(path, lines[a], classes[a], "Gavel job " + keys[a] + " not measured on " + gpu + " in " + tpath);
    const nlohmann::json& row = g[keys[a]];
    if (!row.contains("null") || !row["null"].is_number() || !(row["null"].get<double>() > 0))
      throw Error(path, lines[a], classes[a], "Gavel job " + keys[a] + " has no positive isolated throughput");
    const double alone = row["null"].get<double>();
    for (size_t b = 0; b < n; ++b) {
      if (!row.contains(keys[b]) || !row[keys[b]].is_array() || row[keys[b]].empty() || !row[keys[b]][0].is_number())
        throw Error(path, lines[a], classes[a], "no measured pair " + keys[a] + " with " + keys[b] + " in " + tpath);
      const double r = row[keys[b]][0].get<double>() / alone;
      ratio[a][b] = std::pow(std::clamp(r, floor, 1.0), strength);
    }
  }
  return std::make_shared<GavelInterference>(std::move(classes), std::move(ratio));
}

// ---- factory ---------------------------------------------------------------------------------

std::shared_ptr<const InterferenceModel> make_interference_model(const std::string& name, const std::string& data_dir,
                                                                 const std::string& file) {
  if (name == "none") return nullptr;
  if (name == "contention")
    return std::make_shared<ContentionInterference>(
        load_contention_profiles(file.empty() ? default_contention_file(data_dir) : file));
  if (name == "gavel") return load_gavel_interference(file.empty() ? data_dir + "/harmony/gavel-mapping.yaml" : file);
  throw Error("--interference: unknown model '" + name + "' (known: " + kInterferenceModels + ")");
}

}  // namespace dmlkit::cluster
