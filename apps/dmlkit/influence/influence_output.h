// The output of `dmlkit influence run`: results.json, records.csv, summary.csv (core/results.h),
// detail CSV tables (per-step curves, per-run rewards), report.html with the curves, and the summary printed on
// stdout as a table, JSON or CSV.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/output_dir.h"
#include "core/results.h"
#include "influence/experiment.h"
#include "influence/experiment_stats.h"

namespace dmlkit::app {

struct InfluenceRunDescription {
  std::string graph;
  std::string graph_path;
  uint32_t nodes = 0;
  size_t edges = 0;
  influence::ExperimentConfig config;
};

// results.json, records.csv, summary.csv (core/results.h) of the run.
Results influence_results(const InfluenceRunDescription& desc, const influence::ExperimentResult& result,
                          const std::vector<influence::AlgorithmSummary>& summary);
void write_influence_outputs(OutputDir& out, const InfluenceRunDescription& desc, const Results& res,
                             const influence::ExperimentResult& result,
                             const std::vector<influence::AlgorithmSummary>& summary);
std::string render_influence_summary(const InfluenceRunDescription& desc, const Results& res,
                                     const std::vector<influence::AlgorithmSummary>& summary,
                                     const std::string& format);

}  // namespace dmlkit::app
