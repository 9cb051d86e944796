// What `dmlkit cluster simulate` and `dmlkit cluster compare` share: their options, which fill the
// run entry's spec (cluster/run.h), and printing and writing what the run returns.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cluster/run.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

struct ClusterCliOptions {
  cluster::RunSpec spec;
  // Options whose "not given" means the profile's default (spec fields left unset then).
  std::string placement = "consolidate";
  double round_s = 60;
  double restart_delay_s = 30;
  bool round_given = false, restart_delay_given = false, placement_given = false;
  bool no_event_replan = false;
  std::vector<std::string> policy_files;  // FILE.py:CLASS (python_plugin.h)
  std::string out;
  std::string format = "table";  // table | json | csv
  std::string trace;             // simulate --trace FILE.json ("" = none)
};

// Adds the options common to simulate and compare to `cmd`.
void add_cluster_run_options(CLI::App& cmd, ClusterCliOptions& o);
// The spec with what only the command line decides (given flags, --trace) filled in.
cluster::RunSpec cluster_run_spec(const ClusterCliOptions& o);
// Checks (Context::validate), or runs, writes the output folder and prints the summary.
void validate_cluster_run(const ClusterCliOptions& o);
int run_cluster_policies(const ClusterCliOptions& o, Context& ctx);

}  // namespace dmlkit::app
