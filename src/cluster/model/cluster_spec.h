// The cluster a simulation runs on: a list of servers with their resources.
#pragma once
#include <string>
#include <vector>

namespace dmlkit::cluster {

struct Server {
  int id = 0;
  std::string name;
  int gpus = 0;
  std::string gpu_type = "generic";
  double cpus = 0;
  double mem_gb = 0;
  double net_gbps = 0;
};

struct ClusterSpec {
  std::string name;
  std::vector<Server> servers;

  int total_gpus() const;
  double total_cpus() const;
  double total_mem_gb() const;
  int max_gpus_per_server() const;
  int num_servers() const { return static_cast<int>(servers.size()); }

  // Homogeneous cluster of `n` servers with `gpus` GPUs each, and per-server defaults for the
  // other resources (documented in docs/cluster.md).
  static ClusterSpec homogeneous(int n, int gpus);
  // Parses `spec`: a shorthand "NxG" (e.g. "16x4"), a YAML/JSON cluster file, or the Alibaba 2023
  // node list CSV (recognised by its header). Throws Error naming the file/line/field on bad input.
  static ClusterSpec parse(const std::string& spec);
};

// Defaults for servers whose CPU/memory/network are not given [A]: 8 CPU cores and 64 GB per GPU
// slot-group as on a typical 4-GPU training server (32 cores, 256 GB, 25 Gbps).
inline constexpr double kDefaultCpusPerGpu = 8.0;
inline constexpr double kDefaultMemGbPerGpu = 64.0;
inline constexpr double kDefaultNetGbps = 25.0;

}  // namespace dmlkit::cluster
