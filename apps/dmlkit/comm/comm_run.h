// What `dmlkit comm simulate`, `compare` and `tune` share: their options, turning them into a
// workload + network + scheduler options, and writing the output folder (results.json, CSV tables,
// report.html with one timeline per scheduler).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/iteration_sim.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

struct CommRunOptions {
  std::string model = "vgg16";
  std::string tensors = "module";  // module | parameter
  std::string arch = "ps";
  int workers = 8;
  int servers = 0;  // 0 = as many as workers
  std::string bandwidth = "10Gbps";
  double latency_us = 5;
  std::string switch_bandwidth;  // empty = non-blocking switch
  int racks = 1;
  std::string uplink_bandwidth;  // empty = not oversubscribed
  double op_overhead_us = 50;
  bool ring_stepwise = false;
  double compute_scale = 1;
  std::vector<std::string> slow_workers;  // "I:F": worker I computes F times slower
  std::vector<std::string> slow_links;    // "I:F": worker I's NIC has F of the bandwidth
  int batch = 128;
  int iterations = 4;
  int warmup = 1;
  std::vector<std::string> schedulers;
  double partition_mb = -1, credit_mb = -1;  // -1 = scheduler default
  std::string credit_mode = "any";
  double fusion_mb = -1, cycle_ms = -1;
  double bucket_mib = 25, first_bucket_mib = 1;
  uint64_t seed = 1;
  std::string out;
  std::string format = "table";
  std::string trace;  // simulate/compare --trace FILE.json ("" = none)
  std::string data_dir;   // --data-dir: the bundled data folder (graphs in DATA_DIR/model-graphs)
  std::string graph_dir;  // --graph-dir: the model-graph folder itself (wins over --data-dir)
  std::string command;
};

void add_comm_run_options(CLI::App& cmd, CommRunOptions& o, bool scheduler_knobs);

struct CommSetup {
  comm::TrainingWorkload workload;
  comm::NetworkConfig net;
  comm::SchedulerOptions sched;
  comm::SimOptions sim;
};
// Validates the options and builds the inputs; bad input raises dmlkit::Error.
CommSetup make_comm_setup(const CommRunOptions& o);

// Runs o.schedulers, writes the output folder, prints the summary.
int run_comm_schedulers(const CommRunOptions& o, Context& ctx);
// The checks run_comm_schedulers makes before any simulation (Context::validate); returns the setup.
CommSetup validate_comm_run(const CommRunOptions& o);

}  // namespace dmlkit::app
