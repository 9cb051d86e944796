// The output of a cluster run: results.json, records.csv, summary.csv (core/results.h), the
// per-run jobs-/rounds- tables, report.html, and the summary printed on stdout as a table, JSON or
// CSV. docs/results-schema.md describes the folder.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "core/output_dir.h"
#include "core/results.h"

namespace dmlkit::app {

struct RunDescription {
  std::string command;
  std::string workload;
  std::string workload_path;
  std::string cluster;
  int cluster_gpus = 0;
  int cluster_servers = 0;
  std::string profile;
  std::string placement;
  std::map<std::string, std::string> policy_params;
  std::map<std::string, std::string> effective_knobs;  // every knob of the policies, as used (inputs.effective_knobs)
  uint64_t seed = 0;
  double round_s = 0;
  double restart_delay_s = 0;
  size_t jobs = 0;
  int dropped_oversized = 0;
  std::string interference = "none";  // co-location model (docs/harmony.md)
  std::string interference_file;
  // --calibration: the file and the latencies applied (model seconds); empty path: none.
  std::string calibration;
  double arrival_latency_s = 0, start_latency_s = 0, restart_latency_s = 0;
};

// The records (one per policy, all with desc.seed) and inputs of a run.
Results cluster_results(const RunDescription& desc, const std::vector<cluster::SimResult>& results,
                        const std::vector<cluster::Metrics>& metrics);
void write_cluster_outputs(OutputDir& out, const RunDescription& desc, const Results& res,
                           const std::vector<cluster::SimResult>& results,
                           const std::vector<cluster::Metrics>& metrics);
// The summary of all policies: format is "table", "json" or "csv".
std::string render_cluster_summary(const RunDescription& desc, const Results& res,
                                   const std::vector<cluster::SimResult>& results,
                                   const std::vector<cluster::Metrics>& metrics, const std::string& format);

}  // namespace dmlkit::app
