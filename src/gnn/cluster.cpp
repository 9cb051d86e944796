// Cluster construction and GPU speed ratios (see cluster.h).
#include "gnn/cluster.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit::gnn {

void ClusterSpec::validate() const {
  if (machines.empty()) throw Error("", 0, "machines", "must be >= 1");
  for (size_t m = 0; m < machines.size(); ++m) {
    const auto& x = machines[m];
    if (x.cores < 1) throw Error("", 0, "cores", "every machine needs >= 1 core");
    if (!(x.nic_Bps > 0)) throw Error("", 0, "bandwidth", "must be > 0");
    if (!(x.memory_bytes > 0)) throw Error("", 0, "memory-GB", "must be > 0");
    if (x.rack < 0 || x.rack >= racks) throw Error("", 0, "racks", "machine rack out of range");
  }
  for (int s : store_machine)
    if (s < 0 || s >= static_cast<int>(machines.size()))
      throw Error("", 0, "store-machines", "machine " + std::to_string(s) + " out of range (0.." +
                                               std::to_string(machines.size() - 1) + ")");
}

std::map<std::string, double> gpu_speeds(const std::string& gavel_path, const std::string& model) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(gavel_path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(gavel_path, 0, "", std::string("invalid JSON: ") + e.what());
  }
  std::map<std::string, double> out{{"v100", 1.0}, {"none", 0.0}};
  for (const std::string gpu : {"k80", "p100"}) {
    double log_sum = 0;
    int n = 0;
    bool found = false;
    for (auto it = j.at("v100").begin(); it != j.at("v100").end(); ++it) {
      const std::string& key = it.key();
      if (key.size() < 4 || key.substr(key.size() - 4) != ", 1)") continue;  // single-GPU jobs
      const std::string name = key.substr(2, key.size() - 7);                  // ('NAME', 1)
      if (model != "geomean" && name != model) continue;
      if (!j.contains(gpu) || !j[gpu].contains(key)) continue;
      const double v = it.value().at("null").get<double>(), g = j[gpu][key].at("null").get<double>();
      if (v > 0 && g > 0) log_sum += std::log(g / v), ++n, found = true;
    }
    if (!found) throw Error(gavel_path, 0, "speed-model", "no single-GPU job type '" + model + "' in the Gavel throughputs");
    out[gpu] = std::exp(log_sum / n);
  }
  return out;
}

ClusterSpec build_cluster(const ClusterOptions& o, int partitions) {
  if (o.machines < 1 || o.machines > 1024) throw Error("", 0, "machines", "must be between 1 and 1024");
  if (o.gpus_per_machine < 1) throw Error("", 0, "gpus-per-machine", "must be >= 1");
  if (!(o.nic_Bps > 0)) throw Error("", 0, "bandwidth", "must be > 0");
  if (o.racks < 1 || o.racks > o.machines) throw Error("", 0, "racks", "must be between 1 and --machines");
  ClusterSpec c;
  c.racks = o.racks;
  c.uplink_Bps = o.uplink_Bps;
  c.latency_s = o.latency_s;
  const auto speeds = gpu_speeds(o.gavel_path, o.speed_model);
  size_t i = 0;
  while (i < o.devices.size()) {
    size_t j = o.devices.find(',', i);
    if (j == std::string::npos) j = o.devices.size();
    const std::string item = o.devices.substr(i, j - i);
    const size_t colon = item.find(':');
    const std::string type = item.substr(0, colon);
    int count = 1;
    if (colon != std::string::npos) {
      try {
        size_t used = 0;
        count = std::stoi(item.substr(colon + 1), &used);
        if (used != item.size() - colon - 1) throw std::invalid_argument("");
      } catch (const std::exception&) {
        throw Error("", 0, "devices", "expected type:count, got '" + item + "'");
      }
    }
    if (!speeds.count(type)) throw Error("", 0, "devices", "unknown device '" + type + "' (known: k80, p100, v100, none)");
    if (count < 1) throw Error("", 0, "devices", "count must be >= 1 in '" + item + "'");
    for (int k = 0; k < count; ++k) {
      Machine m;
      m.gpu_type = type;
      m.gpus = type == "none" ? 0 : o.gpus_per_machine;
      m.gpu_speed = speeds.at(type);
      m.cores = o.cores;
      m.memory_bytes = o.memory_GB * 1e9;
      m.nic_Bps = o.nic_Bps;
      c.machines.push_back(m);
    }
    i = j + 1;
  }
  if (static_cast<int>(c.machines.size()) != o.machines)
    throw Error("", 0, "devices", "describes " + std::to_string(c.machines.size()) + " machines but --machines is " +
                                      std::to_string(o.machines));
  for (auto [m, f] : o.slow_nics) {
    if (m < 0 || m >= o.machines) throw Error("", 0, "slow-nic", "machine " + std::to_string(m) + " out of range");
    if (!(f > 0 && f <= 1)) throw Error("", 0, "slow-nic", "fraction must be in (0, 1]");
    c.machines[m].nic_Bps = o.nic_Bps * f;
  }
  for (int m = 0; m < o.machines; ++m) c.machines[m].rack = m * o.racks / o.machines;
  if (partitions < 1) throw Error("", 0, "partitions", "must be >= 1");
  if (!o.store_machines.empty()) {
    if (static_cast<int>(o.store_machines.size()) != partitions)
      throw Error("", 0, "store-machines", "needs one machine per partition (" + std::to_string(partitions) + ")");
    c.store_machine = o.store_machines;
  } else {
    for (int q = 0; q < partitions; ++q) c.store_machine.push_back(static_cast<int>(static_cast<long>(q) * o.machines / partitions));
  }
  c.validate();
  return c;
}

}  // namespace dmlkit::gnn
