// Experiment presets on the command line: `dmlkit cluster experiments` and
// `dmlkit cluster compare --experiment NAME` (cluster_experiment.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cluster/run.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

struct ExperimentCliOptions {
  cluster::ExperimentSpec spec;
  std::vector<std::string> policy_files;  // FILE.py:CLASS, run besides the preset's (python_plugin.h)
  std::string out;
  std::string format = "table";
};

// Runs the preset (cluster/run.h), writes the output folder and prints the summary.
int run_cluster_experiment(const ExperimentCliOptions& o, Context& ctx);
// Its checks before any run (Context::validate).
void validate_cluster_experiment(const ExperimentCliOptions& o);
void add_cluster_experiments_command(CLI::App& cluster, Context& ctx);

}  // namespace dmlkit::app
