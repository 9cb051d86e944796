// The tiny Harmony preset of the `cluster train harmony` / `harmony-seq2seq` CLI tests: 10 Harmony
// jobs on `servers` GPU servers (4 GPUs each) under contention, so that they co-locate and
// interfere; with `allreduce`, half of them all-reduce jobs.
#pragma once
#include <string>

#include "cli_test_util.h"

namespace dmlkit::testing {

// Writes DIR/<cluster_file> (cluster `cluster_name`) and DIR/<name>.yaml; returns the preset's path.
inline std::string harmony_tiny_preset(const TempDir& dir, const std::string& name, const std::string& cluster_file,
                                       const std::string& cluster_name, int servers, bool allreduce) {
  const std::string cluster = dir.write(cluster_file, "name: " + cluster_name + "\nservers:\n  - {count: " +
                                                          std::to_string(servers) +
                                                          ", gpus: 4, cpus: 32, mem_gb: 128, net_gbps: 25, name: gpu}\n");
  return dir.write(name + ".yaml", "experiment: " + name +
                                       "\n"
                                       "description: test preset\n"
                                       "cluster: " +
                                       cluster +
                                       "\n"
                                       "seeds: [1, 2]\n"
                                       "policies: [lb, bin-packing]\n"
                                       "speed_model: analytic\n"
                                       "interference: contention\n"
                                       "round_s: 600\n"
                                       "restart_delay_s: 30\n"
                                       "measure_noise: 0.05\n"
                                       "workload:\n"
                                       "  catalogue: harmony\n"
                                       "  num_jobs: 10\n"
                                       "  arrivals: poisson\n"
                                       "  max_arrivals_per_slot: 2\n"
                                       "  slot_s: 600\n"
                                       "  max_num_epochs: 60\n"
                                       "  user_workers: [1, 4]\n"
                                       "  user_ps_per_worker: 0.5\n" +
                                       std::string(allreduce ? "  allreduce_fraction: 0.5\n" : ""));
}

}  // namespace dmlkit::testing
