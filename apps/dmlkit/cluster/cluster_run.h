// What `dmlkit cluster simulate` and `dmlkit cluster compare` share: their options, the run of
// one or more policies on one workload, and writing the output folder.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "dmlkit/commands.h"

namespace dmlkit::app {

struct ClusterRunOptions {
  std::string workload = "pollux-6";
  std::string cluster = "16x4";
  std::vector<std::string> policies;
  std::string profile = "default";         // default | pollux | tiresias-sim
  std::string placement = "consolidate";   // consolidate | spread | first-fit | most-free
  std::vector<std::string> policy_params;  // key=value
  std::vector<std::string> policy_files;   // FILE.py:CLASS (python_plugin.h)
  double round_s = 60;
  double restart_delay_s = 30;
  bool round_given = false;  // --round / --restart-delay / --placement given (profile defaults otherwise)
  bool restart_delay_given = false;
  bool placement_given = false;
  bool no_event_replan = false;
  bool free_first_start = false;
  double extra_server_slowdown = 0;
  std::string interference = "none";  // co-location interference of PS jobs: none | contention | gavel
  std::string interference_file;      // its data file ("" = bundled)
  bool drop_oversized = false;
  double window_start_s = 0;
  double window_end_s = -1;
  std::vector<std::string> virtual_clusters;
  int synthetic_jobs = 200;
  int max_jobs = 0;                     // --jobs: the first N jobs by arrival (0 = all)
  std::string calibration;              // --calibration FILE (cluster/sim/calibration.h)
  double calibration_time_scale = 0;    // --calibration-time-scale (0: the file's)
  std::string calibration_statistic = "mean";  // --calibration-statistic: mean | median
  uint64_t seed = 1;
  int threads = 0;  // compare: policies run in parallel on this many threads (0 = hardware threads)
  std::string out;
  std::string format = "table";  // table | json | csv
  std::string trace;             // simulate --trace FILE.json ("" = none)
  std::string data_dir;
  std::string command;  // "cluster simulate" / "cluster compare"
};

// Adds the options common to simulate and compare to `cmd`.
void add_cluster_run_options(CLI::App& cmd, ClusterRunOptions& o);
// Runs every policy in o.policies on the workload, writes the output folder, prints the summary.
int run_cluster_policies(const ClusterRunOptions& o, Context& ctx);
// The checks run_cluster_policies makes before any simulation (options, policy names and knobs,
// cluster, workload name or file), without reading the workload: Context::validate.
void validate_cluster_run(const ClusterRunOptions& o);

}  // namespace dmlkit::app
