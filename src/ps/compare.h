// The run entry of `dmlkit ps compare` (docs/psld.md): assignment policies compared on one
// model, cluster and straggler scenario. CompareSpec is the documented spec (it writes its own
// inputs), check(spec) refuses bad input before any simulation (dmlkit::Error naming the field),
// run(spec, progress) returns the Results, the report and the CSV tables (comm/run.h's RunOutput)
// without writing anything. Below it: speed-ups of the time for N iterations over mxnet and
// byteps, the records of core/results.h (docs/results-schema.md, "ps"), the tables and charts.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "comm/run.h"
#include "core/html_report.h"
#include "core/knobs.h"
#include "core/results.h"
#include "core/table.h"
#include "ps/runner.h"
#include "ps/stragglers.h"

namespace dmlkit::ps {

// `ps compare`: the job and network (comm::TrainingSpec; PS only, with its own defaults: 4
// servers, 500 iterations, no warm-up) and what is compared.
struct CompareSpec : comm::TrainingSpec {
  CompareSpec() {
    servers = 4;
    iterations = 500;
    warmup = 0;
  }
  std::vector<std::string> policies{"mxnet", "byteps", "paa", "psld"};  // in order (`ps list`)
  KnobValues policy_params;             // policy knobs, "<policy>.<knob>" -> value (`ps list -v`); default none
  std::string stragglers = "rotating";  // none | persistent | rotating | burst | a CSV file
  double server_GBps = 4;               // aggregation throughput of a healthy server CPU, GB/s (0 = not simulated)
  uint64_t seed = 1;                    // seeds the randomised policies and scenarios

  // Writes results.json's inputs (`setup`: the network as resolved; `effective_knobs`: every
  // knob of the policies as their factories read it).
  void write_inputs(Results& results, const comm::Setup& setup, const KnobValues& effective_knobs) const;
};

// What check() built: the job and network, the straggler scenario, the policies' knobs as used.
struct CheckedCompare {
  comm::Setup setup;
  StragglerScenario stragglers;
  KnobValues effective_knobs;
};
CheckedCompare check(const CompareSpec& spec);
// Runs every policy (checking the spec first); `progress` (may be null) advances per policy.
comm::RunOutput run(const CompareSpec& spec, ProgressBar* progress = nullptr);

struct PolicyRun {
  PsRun run;
  double iteration_mean_s = 0;    // after warm-up
  double speedup_over_mxnet = 0;  // mxnet's total_s / this one's; NaN when mxnet did not run
  double speedup_over_byteps = 0;
  double mean_imbalance = 0;  // mean over iterations of max/mean load of the servers holding load
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
