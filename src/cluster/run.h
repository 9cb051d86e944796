// The run entry of the cluster family: what `dmlkit cluster simulate|compare` (apps/dmlkit/cluster/)
// and Python's dmlkit.cluster.simulate/compare (python/src/cluster_run.cpp) both call. A plain spec
// (RunSpec: one workload, one or more policies; ExperimentSpec: an experiment preset over its
// seeds), check(spec) refusing bad input before any work, and run(spec, progress) returning the
// Results (docs/results-schema.md, "cluster"), the detail tables and the report -- in memory:
// nothing is written until the caller writes the output folder (write()).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"
#include "core/trace_events.h"

namespace dmlkit::cluster {

// One or more policies on one workload and cluster, one seed. Error messages name a field by its
// command-line flag (--round), which is also its Python keyword (round=).
struct RunSpec {
  // Results' `command`: "cluster simulate" or "cluster compare".
  std::string command = "cluster compare";
  // --workload: bundled name (pollux-1..8, philly, tiresias-60, synthetic, ...) or a CSV file.
  std::string workload = "pollux-6";
  // --cluster: NxG shorthand ("16x4"), a YAML/JSON file, or alibaba-2023.
  std::string cluster = "16x4";
  // --policy / --policies: registry names (cluster/policy.h), each at most once; not empty.
  std::vector<std::string> policies;
  // --profile: simulation semantics, "default", "pollux" or "tiresias-sim".
  std::string profile = "default";
  // --placement for policies that place GPU counts: consolidate, spread, first-fit, most-free
  // (unset: the profile's, consolidate or tiresias-sim's first-fit).
  std::optional<std::string> placement;
  // --policy-param: policy knobs as "key=value" (e.g. "tiresias.queues=2").
  std::vector<std::string> policy_params;
  // --round: scheduling round length, seconds, > 0 (unset: the profile's, 60 s; tiresias-sim none).
  std::optional<double> round_s;
  // --restart-delay: seconds a job loses when its placement changes, >= 0 (unset: the profile's, 30 s).
  std::optional<double> restart_delay_s;
  // --no-event-replan (false here): default profile re-plans at arrivals and completions too.
  bool event_replan = true;
  // --free-first-start: no restart delay on a job's first start (default: charged).
  bool free_first_start = false;
  // --extra-server-slowdown: trace jobs' fractional slowdown per extra server, >= 0 (0 = off).
  double extra_server_slowdown = 0;
  // --interference: co-location model of parameter-server jobs: none, contention or gavel.
  std::string interference = "none";
  // --interference-file: its data file ("" = the bundled one).
  std::string interference_file;
  // --drop-oversized: drop (and count) jobs needing more GPUs than the cluster has (default: error).
  bool drop_oversized = false;
  // --window-start / --window-end: Philly trace window, seconds (end < 0: to the end).
  double window_start_s = 0;
  double window_end_s = -1;
  // --vc: Philly trace: keep only these virtual clusters (empty: all).
  std::vector<std::string> virtual_clusters;
  // --synthetic-jobs: jobs of the synthetic workload, >= 1.
  int synthetic_jobs = 200;
  // --jobs: simulate only the first N jobs by arrival (0 = all).
  int max_jobs = 0;
  // --calibration: sim-to-real calibration file (cluster/sim/calibration.h; "" = none).
  std::string calibration;
  // --calibration-time-scale: wall seconds per model second (0: the file's own).
  double calibration_time_scale = 0;
  // --calibration-statistic: mean or median.
  std::string calibration_statistic = "mean";
  // --seed: the run's seed (results are identical for the same seed).
  uint64_t seed = 1;
  // --threads: policies run in parallel on this many threads (0 = hardware threads; results do
  // not depend on it).
  int threads = 0;
  // Keep every placement interval (RunOutput::trace(); `cluster simulate --trace`).
  bool record_placements = false;
  // --data-dir: folder of bundled data ("" = core/data_dir.h's default).
  std::string data_dir;
};

// What a run resolved from its spec (the workload read, the cluster parsed, the profile's
// defaults applied, every knob as used): results.json's `inputs`, the report's header.
struct RunDescription {
  std::string command;
  std::string workload;       // the workload's name
  std::string workload_path;  // its file ("" for synthetic)
  std::string cluster;        // as given
  int cluster_gpus = 0;
  int cluster_servers = 0;
  std::string profile;
  std::string placement;
  std::map<std::string, std::string> policy_params;    // as given
  std::map<std::string, std::string> effective_knobs;  // every knob of the policies, as used
  uint64_t seed = 0;
  double round_s = 0;  // +inf (JSON null): no rounds
  double restart_delay_s = 0;
  size_t jobs = 0;
  int dropped_oversized = 0;
  std::string interference = "none";
  std::string interference_file;
  // --calibration: the file and the latencies applied (model seconds); empty path: none.
  std::string calibration;
  double arrival_latency_s = 0, start_latency_s = 0, restart_latency_s = 0;

  // Writes results.json's `inputs` (docs/results-schema.md, "cluster").
  void write_inputs(Results& results) const;
};

// What a run reports while it goes, for display only (calls are serialised; any may be empty).
// `run` indexes the simulations of the run (RunSpec: its policies; ExperimentSpec: seeds outer,
// policies inner; an oasis preset: its items in the order they start).
struct RunProgress {
  // Once, before the first simulation: a label (the preset's name; "" for RunSpec), the number of
  // simulations, and the jobs of each (0 when not known).
  std::function<void(const std::string& label, size_t runs, size_t jobs)> on_begin;
  // A simulation starts: its policy (experiments: "POLICY seed N"; oasis: "").
  std::function<void(size_t run, const std::string& what)> on_start;
  // Jobs finished so far at simulated time now_s (a few times per second of wall time at most).
  std::function<void(size_t run, double now_s, size_t finished)> on_jobs;
  std::function<void(size_t run)> on_done;
};

// A file of the output folder besides results.json, records.csv, summary.csv and report.html.
struct OutputFile {
  std::string name;
  std::string content;
};

struct RunOutput {
  RunDescription description;
  ClusterSpec cluster;
  std::vector<SimResult> runs;  // one per policy, in the spec's order
  std::vector<Metrics> metrics;
  Results results{"cluster compare", "policy"};

  // The per-run tables (jobs-POLICY-seedN.csv, rounds-...), in the folder's order.
  std::vector<OutputFile> detail_files() const;
  // One of them by name, rendered on demand (nullopt: no such table).
  std::optional<std::string> detail_file(const std::string& name) const;
  HtmlReport report() const;
  // What the command prints: format "table" (a header line and the summary table), "json"
  // (results.json) or "csv" (the summary table).
  std::string summary(const std::string& format) const;
  // Jobs on servers over time (RunSpec::record_placements).
  TraceEvents trace() const;
  // results.json, records.csv, summary.csv, the detail tables and report.html.
  void write(OutputDir& out) const;
};

// Throws Error (naming the field) for anything run() would refuse, reading no workload: fields,
// policy names and knobs, cluster, workload name or file, interference data, calibration file.
void check(const RunSpec& spec);
// check(), then reads the workload, simulates every policy (in parallel with spec.threads) and
// builds the results. Writes nothing.
RunOutput run(const RunSpec& spec, const RunProgress& progress = {});

// An experiment preset of experiments/ (cluster/workload/experiment.h; `engine: oasis`:
// cluster/oasis/oasis_experiment.h) over its seeds: `dmlkit cluster compare --experiment`.
struct ExperimentSpec {
  // --experiment: a preset name in experiments_dir, or a file.
  std::string experiment;
  // --experiments-dir: folder of presets ("" = default_experiments_dir()).
  std::string experiments_dir;
  // --policies: replaces the preset's (empty: the preset's).
  std::vector<std::string> policies;
  // --seeds: replaces the preset's (empty: the preset's).
  std::vector<uint64_t> seeds;
  // --policy-param "key=value": added to (and overriding) the preset's knobs.
  std::vector<std::string> policy_params;
  // --interference / --interference-file: replace the preset's ("" = the preset's).
  std::string interference;
  std::string interference_file;
  // Policies run besides the preset's or --policies (Python policies the caller registered).
  std::vector<std::string> extra_policies;
  // --threads: runs (policies x seeds) in parallel (0 = hardware threads).
  int threads = 0;
  // --data-dir ("" = core/data_dir.h's default).
  std::string data_dir;
};

struct ExperimentOutput {
  std::string name;  // the preset's name (default folder out/cluster-compare-NAME)
  Results results{"cluster compare", "policy"};
  std::vector<OutputFile> files;            // detail tables
  std::function<HtmlReport()> make_report;  // the report (built on demand)
  std::string header;                       // the line printed above the table ("experiment ...")
  TextTable table{{}};                      // the printed summary

  HtmlReport report() const { return make_report(); }
  std::string summary(const std::string& format) const;
  void write(OutputDir& out) const;
};

// Loads the preset and checks what run() would refuse before any simulation.
void check(const ExperimentSpec& spec);
// The preset's name (its default output folder is out/cluster-compare-NAME); Error if it cannot be loaded.
std::string experiment_name(const ExperimentSpec& spec);
// Runs the preset (policies x seeds; an oasis preset: methods x seeds x sweep points).
ExperimentOutput run(const ExperimentSpec& spec, const RunProgress& progress = {});

}  // namespace dmlkit::cluster
