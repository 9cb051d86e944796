// Cluster descriptions: the "NxG[:TYPE]" shorthand, YAML/JSON cluster files, and the Alibaba 2023
// node list CSV (also bundled as "alibaba-2023"). Format reference: docs/cluster-workloads.md.
#include "cluster/model/cluster_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/data_dir.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/yaml.h"

namespace dmlkit::cluster {

int ClusterSpec::total_gpus() const {
  int n = 0;
  for (const auto& s : servers) n += s.gpus;
  return n;
}

double ClusterSpec::total_cpus() const {
  double n = 0;
  for (const auto& s : servers) n += s.cpus;
  return n;
}

double ClusterSpec::total_mem_gb() const {
  double n = 0;
  for (const auto& s : servers) n += s.mem_gb;
  return n;
}

int ClusterSpec::max_gpus_per_server() const {
  int n = 0;
  for (const auto& s : servers) n = std::max(n, s.gpus);
  return n;
}

namespace {

Server default_server(int id, int gpus, const std::string& gpu_type) {
  Server s;
  s.id = id;
  s.name = "server-" + std::to_string(id);
  s.gpus = gpus;
  s.gpu_type = gpu_type.empty() ? "generic" : gpu_type;
  s.cpus = kDefaultCpusPerGpu * gpus;
  s.mem_gb = kDefaultMemGbPerGpu * gpus;
  s.net_gbps = kDefaultNetGbps;
  return s;
}

// "NxG" or "NxG:TYPE" with N >= 1, G >= 1 (digits only). Returns false if `spec` does not have
// that shape at all; throws if it has the shape but a bad value.
bool parse_shorthand(const std::string& spec, ClusterSpec& out) {
  std::string body = spec, type;
  auto colon = spec.find(':');
  if (colon != std::string::npos) {
    body = spec.substr(0, colon);
    type = spec.substr(colon + 1);
  }
  auto x = body.find('x');
  if (x == std::string::npos || x == 0 || x + 1 >= body.size()) return false;
  auto digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string n_str = body.substr(0, x), g_str = body.substr(x + 1);
  if (!digits(n_str) || !digits(g_str)) return false;
  if (n_str.size() > 6 || g_str.size() > 4)
    throw Error("cluster '" + spec + "': too large (at most 999999 servers of 9999 GPUs)");
  int n = std::stoi(n_str), g = std::stoi(g_str);
  if (n < 1) throw Error("cluster '" + spec + "': needs at least one server");
  if (g < 1) throw Error("cluster '" + spec + "': needs at least one GPU per server");
  if (colon != std::string::npos && type.empty()) throw Error("cluster '" + spec + "': empty GPU type after ':'");
  out = ClusterSpec::homogeneous(n, g);
  out.name = spec;
  if (!type.empty())
    for (auto& s : out.servers) s.gpu_type = type;
  return true;
}

bool is_regular_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// Alibaba 2023 node list: sn,cpu_milli,memory_mib,gpu,model.
ClusterSpec parse_alibaba(const std::string& path) {
  CsvTable t = CsvTable::read(path);
  const int c_sn = t.column("sn"), c_cpu = t.column("cpu_milli"), c_mem = t.column("memory_mib"),
            c_gpu = t.column("gpu"), c_model = t.column("model");
  ClusterSpec spec;
  spec.name = file_stem(path);
  spec.servers.reserve(t.rows());
  for (size_t r = 0; r < t.rows(); ++r) {
    Server s;
    s.id = static_cast<int>(r);
    s.name = std::string(t.str(r, c_sn));
    if (s.name.empty()) t.fail(r, c_sn, "empty node name");
    double cpu_milli = t.num(r, c_cpu);
    if (cpu_milli < 0) t.fail(r, c_cpu, "negative CPU count");
    double mem_mib = t.num(r, c_mem);
    if (mem_mib < 0) t.fail(r, c_mem, "negative memory");
    long gpus = t.integer(r, c_gpu);
    if (gpus < 0 || gpus > 1000000) t.fail(r, c_gpu, "GPU count out of range: " + std::to_string(gpus));
    s.gpus = static_cast<int>(gpus);
    s.cpus = cpu_milli / 1000.0;
    s.mem_gb = mem_mib / 1024.0;
    s.net_gbps = kDefaultNetGbps;
    std::string model(t.str(r, c_model));
    s.gpu_type = s.gpus == 0 ? "none" : (model.empty() ? "generic" : model);
    spec.servers.push_back(std::move(s));
  }
  if (spec.servers.empty()) throw Error(path, 0, "", "no nodes in the node list");
  return spec;
}

// YAML (or JSON) cluster file:
//   name: my-cluster            # optional
//   servers:
//     - {count: 8, gpus: 4, gpu_type: V100, cpus: 32, mem_gb: 256, net_gbps: 25, name: rack-a}
ClusterSpec parse_yaml(const std::string& path) {
  const YAML::Node root = yaml::load_file(path);
  if (!root.IsMap()) throw Error(path, yaml::line_of(root), "", "expected a mapping with a 'servers' list");
  ClusterSpec spec;
  spec.name = file_stem(path);
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (key == "name") {
      spec.name = yaml::string(path, kv.second, "name");
    } else if (key != "servers") {
      throw Error(path, yaml::line_of(kv.first), key, "unknown field (known: name, servers)");
    }
  }
  const YAML::Node servers = root["servers"];
  if (!servers) throw Error(path, yaml::line_of(root), "servers", "missing field");
  if (!servers.IsSequence() || servers.size() == 0)
    throw Error(path, yaml::line_of(servers), "servers", "expected a non-empty list of server groups");
  static const std::set<std::string> known = {"count", "gpus", "gpu_type", "cpus", "mem_gb", "net_gbps", "name"};
  for (const auto& group : servers) {
    if (!group.IsMap()) throw Error(path, yaml::line_of(group), "servers", "expected a mapping per server group");
    for (const auto& kv : group) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (!known.count(key))
        throw Error(path, yaml::line_of(kv.first), key,
                    "unknown field (known: count, gpus, gpu_type, cpus, mem_gb, net_gbps, name)");
    }
    const int count = group["count"] ? static_cast<int>(yaml::integer(path, group["count"], "count", 1, 1000000)) : 1;
    if (!group["gpus"]) throw Error(path, yaml::line_of(group), "gpus", "missing field");
    const int gpus = static_cast<int>(yaml::integer(path, group["gpus"], "gpus", 0, 1000000));
    Server proto = default_server(0, gpus, group["gpu_type"] ? yaml::string(path, group["gpu_type"], "gpu_type") : "");
    if (gpus == 0) proto.gpu_type = group["gpu_type"] ? proto.gpu_type : "none";
    if (group["cpus"]) {
      proto.cpus = yaml::number(path, group["cpus"], "cpus");
      if (proto.cpus < 0) throw Error(path, yaml::line_of(group["cpus"]), "cpus", "must be >= 0");
    } else if (gpus == 0) {
      throw Error(path, yaml::line_of(group), "cpus", "missing field (required for a server with 0 GPUs)");
    }
    if (group["mem_gb"]) {
      proto.mem_gb = yaml::number(path, group["mem_gb"], "mem_gb");
      if (proto.mem_gb < 0) throw Error(path, yaml::line_of(group["mem_gb"]), "mem_gb", "must be >= 0");
    } else if (gpus == 0) {
      throw Error(path, yaml::line_of(group), "mem_gb", "missing field (required for a server with 0 GPUs)");
    }
    if (group["net_gbps"]) {
      proto.net_gbps = yaml::number(path, group["net_gbps"], "net_gbps");
      if (proto.net_gbps <= 0) throw Error(path, yaml::line_of(group["net_gbps"]), "net_gbps", "must be > 0");
    }
    const std::string prefix = group["name"] ? yaml::string(path, group["name"], "name") : "";
    for (int i = 0; i < count; ++i) {
      Server s = proto;
      s.id = static_cast<int>(spec.servers.size());
      s.name =
          prefix.empty() ? "server-" + std::to_string(s.id) : (count == 1 ? prefix : prefix + "-" + std::to_string(i));
      spec.servers.push_back(std::move(s));
      if (spec.servers.size() > 1000000) throw Error(path, yaml::line_of(group), "count", "more than 1000000 servers");
    }
  }
  return spec;
}

bool looks_like_alibaba(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string first;
  std::getline(in, first);
  if (!first.empty() && first.back() == '\r') first.pop_back();
  // Skip a UTF-8 byte order mark.
  if (first.rfind("\xEF\xBB\xBF", 0) == 0) first.erase(0, 3);
  return first.rfind("sn,", 0) == 0 || first.find("cpu_milli") != std::string::npos;
}

}  // namespace

ClusterSpec ClusterSpec::homogeneous(int n, int gpus) {
  if (n < 1) throw Error("homogeneous cluster: needs at least one server");
  if (gpus < 0) throw Error("homogeneous cluster: negative GPU count");
  ClusterSpec spec;
  spec.name = std::to_string(n) + "x" + std::to_string(gpus);
  spec.servers.reserve(n);
  for (int i = 0; i < n; ++i) spec.servers.push_back(default_server(i, gpus, ""));
  return spec;
}

ClusterSpec ClusterSpec::parse(const std::string& spec) {
  if (spec.empty()) throw Error("empty cluster spec (expected NxG, NxG:TYPE, a cluster file or alibaba-2023)");
  ClusterSpec out;
  if (!is_regular_file(spec) && parse_shorthand(spec, out)) return out;
  std::string path = spec;
  if (spec == "alibaba-2023") path = default_data_dir() + "/alibaba-gpu-2023/openb_node_list_gpu_node.csv";
  if (!is_regular_file(path)) {
    throw Error(path, 0, "",
                "no such cluster file, and not a shorthand NxG[:TYPE] (e.g. 16x4) or a bundled name "
                "(alibaba-2023)");
  }
  if (looks_like_alibaba(path)) {
    out = parse_alibaba(path);
    if (spec == "alibaba-2023") out.name = "alibaba-2023";
  } else {
    out = parse_yaml(path);
  }
  return out;
}

}  // namespace dmlkit::cluster
