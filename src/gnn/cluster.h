// The simulated cluster of distributed GNN training [A: our reconstruction, spec section A.3]:
// machines with CPU cores, zero or more GPUs of one type (k80, p100, v100 or none), memory and a
// full-duplex NIC; optional racks whose uplinks may be oversubscribed; graph-store servers, one
// per partition, fixed on machines (not subject to placement).
//
// GPU speed ratios come from measured throughputs (Gavel, data/gavel-throughputs/): for each of
// the 26 single-GPU job types, throughput(gpu) / throughput(v100); `--speed-model geomean` (the
// default) takes their geometric mean (k80 ~0.26, p100 ~0.90), or one job type by name, e.g.
// "ResNet-50 (batch size 64)" (k80 0.14, p100 0.60).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace dmlkit::gnn {

struct Machine {
  std::string gpu_type = "v100";  // "none" for a CPU-only machine
  int gpus = 1;
  double gpu_speed = 1.0;         // relative to a V100
  int cores = 16;
  double memory_bytes = 64e9;
  double nic_Bps = 1.25e9;        // each direction
  int rack = 0;
};

struct ClusterSpec {
  std::vector<Machine> machines;
  int racks = 1;
  double uplink_Bps = 0;     // per rack and direction; 0 = not oversubscribed (sum of its NICs)
  double latency_s = 5e-6;   // per hop (NIC or uplink) [A]
  std::vector<int> store_machine;  // per partition: the machine of its graph-store server
  void validate() const;           // Error naming the field
};

// Relative speeds {k80, p100, v100} from the Gavel file; `model` is "geomean" or a job type.
std::map<std::string, double> gpu_speeds(const std::string& gavel_path, const std::string& model);

struct ClusterOptions {
  int machines = 8;
  std::string devices = "v100:8";  // type:count,... (machines per type, in order); type none = no GPU
  int gpus_per_machine = 1;
  int cores = 16;
  double memory_GB = 64;
  double nic_Bps = 1.25e9;
  std::vector<std::pair<int, double>> slow_nics;  // (machine, fraction of nic_Bps)
  int racks = 1;
  double uplink_Bps = 0;
  double latency_s = 5e-6;
  std::vector<int> store_machines;  // empty: partition q on machine floor(q * machines / partitions)
  std::string speed_model = "geomean";
  std::string gavel_path;  // data/gavel-throughputs/simulation_throughputs.json
};

ClusterSpec build_cluster(const ClusterOptions& o, int partitions);

}  // namespace dmlkit::gnn
