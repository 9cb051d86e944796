// The one runner of the cluster family: a list of simulations (policy, workload, cluster,
// settings) on up to N threads, each into its own slot, so any number of threads gives the serial
// result. cluster/run.h (simulate, compare) and run_experiment (presets over seeds) both use it.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"

namespace dmlkit::cluster {

struct SimTask {
  std::string policy_name;
  // The policy object (borrowed; each task its own). Null: make_policy(policy_name, options) in the
  // task's thread, fresh state per run.
  Policy* policy = nullptr;
  PolicyOptions options;
  const ClusterSpec* cluster = nullptr;
  const Workload* workload = nullptr;
  const SimConfig* config = nullptr;
};

struct SimRun {
  SimResult result;
  Metrics metrics;
};

// Progress of run_simulations, for display only; calls are serialised, any may be empty.
struct SimProgress {
  std::function<void(size_t task)> on_start;
  std::function<void(size_t task, double now_s, size_t finished)> on_jobs;
  std::function<void(size_t task)> on_done;
};

// Runs every task (threads: core/parallel_for.h's resolve_threads, capped at the number of tasks);
// the results come back in the tasks' order.
std::vector<SimRun> run_simulations(const std::vector<SimTask>& tasks, int threads, const SimProgress& progress = {});

}  // namespace dmlkit::cluster
