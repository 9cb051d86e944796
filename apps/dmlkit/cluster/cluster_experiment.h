// Experiment presets on the command line: `dmlkit cluster experiments` and
// `dmlkit cluster compare --experiment NAME` (cluster_experiment.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "dmlkit/commands.h"

namespace dmlkit::app {

struct ExperimentCliOptions {
  std::string experiment;  // name in experiments_dir or a path
  std::string experiments_dir;
  std::vector<std::string> policies;       // empty: the experiment's
  std::vector<uint64_t> seeds;             // empty: the experiment's
  std::vector<std::string> policy_params;  // key=value, added to (and overriding) the preset's
  std::vector<std::string> policy_files;   // FILE.py:CLASS, run besides the preset's (python_plugin.h)
  std::string out;
  std::string format = "table";
  std::string data_dir;
  int threads = 0;  // 0 = hardware threads
  std::string interference;       // empty: the preset's (none | contention | gavel)
  std::string interference_file;  // empty: the preset's
};

int run_cluster_experiment(const ExperimentCliOptions& o, Context& ctx);
// Its checks before any run (Context::validate): the preset, and for the simulator's engine the
// policies, knobs and cluster. An `engine: oasis` preset is checked as far as loading it.
void validate_cluster_experiment(const ExperimentCliOptions& o);
// An experiment with `engine: oasis` (cluster_oasis.cpp): the OASiS model, its methods, sweeps
// and LP bound; the same options and output layout.
int run_oasis_experiment_cli(const std::string& path, const ExperimentCliOptions& o, Context& ctx);
void add_cluster_experiments_command(CLI::App& cluster, Context& ctx);

}  // namespace dmlkit::app
