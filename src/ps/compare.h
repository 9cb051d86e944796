// Comparing assignment policies on one model, cluster and straggler scenario (`dmlkit ps
// compare`): speed-ups of the time for N iterations over mxnet and byteps, the records of
// core/results.h (docs/results-schema.md, "ps"), the CSV tables and the charts of the report.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/html_report.h"
#include "core/results.h"
#include "core/table.h"
#include "ps/runner.h"

namespace dmlkit::ps {

struct PolicyRun {
  PsRun run;
  double iteration_mean_s = 0;  // after warm-up
  double speedup_over_mxnet = 0;  // mxnet's total_s / this one's; NaN when mxnet did not run
  double speedup_over_byteps = 0;
  double mean_imbalance = 0;    // mean over iterations of max/mean load of the servers holding load
};

// Fills the derived fields of every run.
void add_comparisons(std::vector<PolicyRun>& runs, int warmup);

// One record per policy (seed given): total_s, iteration_mean_s, speedup_over_mxnet,
// speedup_over_byteps, mean_imbalance, switches, migrated_bytes, wait_s; detail iteration_s.
void add_policy_records(Results& results, const std::vector<PolicyRun>& runs, uint64_t seed);

TextTable summary_table(const std::vector<PolicyRun>& runs);
TextTable iterations_table(const std::vector<PolicyRun>& runs);  // policy, iteration, iteration_s
TextTable loads_table(const std::vector<PolicyRun>& runs);       // policy, iteration, server, ...
TextTable events_table(const std::vector<PolicyRun>& runs);      // policy, kind, iterations, bytes, ...
TextTable stragglers_table(const StragglerScenario& s);

LineChart iteration_chart(const std::vector<PolicyRun>& runs);
LineChart load_chart(const PolicyRun& run);      // each server's share of the bytes over the run
LineChart estimate_chart(const PolicyRun& run);  // dynamic policies: throughput estimates

}  // namespace dmlkit::ps
