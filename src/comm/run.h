// The run entries of `dmlkit comm` (docs/comm.md): `comm simulate` / `comm compare` (RunSpec) and
// `comm tune` (TuneSpec). Each is a plain spec with every field documented (name, unit, default),
// check(spec) that refuses bad input before any simulation (dmlkit::Error naming the field) and
// returns what it built (the workload, the network), and run(spec, progress) that returns the
// Results, the report and the tables of the output folder, writing nothing: the caller (the CLI,
// Python) prints them or writes them with RunOutput::write. The same output shape is used by
// ps/ and gnn/ (ps/compare.h, gnn/compare.h).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "comm/iteration_sim.h"
#include "core/html_report.h"
#include "core/knobs.h"
#include "core/results.h"
#include "core/table.h"
#include "core/trace_events.h"

namespace dmlkit {
class OutputDir;
class ProgressBar;
}  // namespace dmlkit

namespace dmlkit::comm {

// One training job on one network: what `comm`, `ps` (and the CLI options they share) describe.
struct TrainingSpec {
  std::string model = "vgg16";            // model DAG name (a file <name>.txt of the graph folder)
  std::string tensors = "module";         // gradient tensors: module (one per profiled module) | parameter
  std::string arch = "ps";                // synchronisation: ps (parameter servers) | allreduce (ring)
  int workers = 8;                        // workers, one GPU each (>= 1)
  int servers = 0;                        // parameter servers (ps); 0 = as many as workers
  std::string bandwidth = "10Gbps";       // NIC bandwidth per direction ("10Gbps", "25Gbit/s", "1.25GBps")
  double latency_us = 5;                  // latency of one hop host->switch, microseconds
  std::string switch_bandwidth;           // shared switch backplane; "" = non-blocking
  int racks = 1;                          // racks (hosts spread evenly)
  std::string uplink_bandwidth;           // rack uplink per direction; "" = NIC x hosts in the rack
  double op_overhead_us = 50;             // fixed cost of each synchronisation operation, microseconds
  bool ring_stepwise = false;             // ring all-reduce step by step instead of aggregated flows
  double compute_scale = 1;               // factor on the profiled compute times (another GPU)
  std::vector<std::string> slow_workers;  // "I:F": worker I computes F (>= 1) times slower
  std::vector<std::string> slow_links;    // "I:F": worker I's NIC has fraction F of the bandwidth
  int batch = 128;                        // per-worker batch; compute scales by batch/128
  int iterations = 4;                     // simulated iterations (1..1000)
  int warmup = 1;                         // leading iterations not reported (< iterations)
  std::string data_dir;                   // bundled data folder; "" = core/data_dir.h's default
  std::string graph_dir;                  // the model-graph folder itself; "" = <data_dir>/model-graphs
};

// What check() builds from a TrainingSpec: the workload (compute scaled) and the network.
struct Setup {
  TrainingWorkload workload;
  NetworkConfig net;
  SimOptions sim;
};
// Validates every field of `spec` and loads its model; Error naming the field.
Setup make_setup(const TrainingSpec& spec);

// `comm simulate` (one scheduler) and `comm compare` (several) on one TrainingSpec.
struct RunSpec : TrainingSpec {
  std::string command = "comm compare";  // results.json's command: "comm simulate" | "comm compare"
  std::vector<std::string> schedulers;   // in order; empty = every scheduler that supports `arch`
  // Scheduler knobs (scheduler.h): "<scheduler>.<knob>" (`comm schedulers -v`), or a bare
  // "<knob>" for every chosen scheduler declaring it (what --partition-mb etc. set). Default: none.
  KnobValues scheduler_params;
  uint64_t seed = 1;  // recorded (the simulation itself is deterministic)

  // The schedulers that run: `schedulers`, or every one supporting `arch`.
  std::vector<std::string> chosen() const;
  // Writes results.json's inputs (the network as resolved by `setup`, every knob as used).
  void write_inputs(Results& results, const Setup& setup) const;
};

// `comm tune`: Bayesian optimisation (and a grid search) of one scheduler's tuning space
// (declared in its registry entry) on one TrainingSpec.
struct TuneSpec : TrainingSpec {
  std::string scheduler = "bytescheduler";  // a scheduler with a tuning space (bytescheduler, horovod)
  int probes = 20;                          // simulated runs of the Bayesian optimisation (1..500)
  int initial = 5;                          // random initial probes before expected improvement (>= 1)
  int grid = 8;                             // grid points per dimension for the comparison (0 = no grid, else 2..30)
  KnobValues scheduler_params;              // knobs not searched (e.g. credit-mode), as in RunSpec
  uint64_t seed = 1;                        // seeds the optimisation's random probes

  void write_inputs(Results& results, const Setup& setup) const;
};

// What a run returns: everything its output folder holds, and what the CLI prints.
struct RunOutput {
  explicit RunOutput(Results r, std::string report_title, std::vector<std::string> summary_header)
      : results(std::move(r)), report(std::move(report_title)), summary(std::move(summary_header)) {}
  Results results;                                         // results.json, records.csv, summary.csv
  HtmlReport report;                                       // report.html, report.json
  std::vector<std::pair<std::string, std::string>> files;  // other files: name -> content (CSV tables)
  TextTable summary;                                       // what --format table|csv prints
  std::string before_table;                                // --format table: printed before the summary table
  std::string after_table;                                 // --format table: printed after it
  std::vector<std::string> notes;  // one-line notes for the user (printed after the output location)
  TraceEvents trace;               // comm simulate/compare: the timelines (--trace)

  // Writes results, files and report into `out` (not committed).
  void write(OutputDir& out) const;
};

// Every check before any simulation; returns the setup the run uses.
Setup check(const RunSpec& spec);
Setup check(const TuneSpec& spec);

// Runs the spec (checking it first). `progress` (may be null) is advanced per simulated run.
RunOutput run(const RunSpec& spec, ProgressBar* progress = nullptr);
RunOutput run(const TuneSpec& spec, ProgressBar* progress = nullptr);

}  // namespace dmlkit::comm
