// Cluster runs as core Results (docs/results-schema.md, "cluster"): one record per (policy, seed)
// with the metrics of cluster/sim/metrics.h, and its per-job and per-round detail tables. Both
// `cluster simulate|compare` (one workload, one seed) and `cluster compare --experiment` (a preset
// over its seeds) write their output folder with write_cluster_run_files(), so the two have the
// same layout.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>

#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"

namespace dmlkit::cluster {

// "fifo-seed1": the suffix of a run's detail files (jobs-fifo-seed1.csv, rounds-fifo-seed1.csv).
std::string run_file_stem(const std::string& policy, uint64_t seed);

// Appends the record of one run: name = policy, seed, metrics (jobs, finished, avg_jct_s,
// median_jct_s, p95_jct_s, p99_jct_s, makespan_s, avg_queue_s, gpu_utilization, preemptions,
// timed_out) and files (jobs_csv, rounds_csv).
void add_run_record(Results& results, const SimResult& run, const Metrics& metrics, uint64_t seed);

// Per-job and per-round CSV tables of one run (jobs-*.csv, rounds-*.csv), streamed into `out`.
void write_jobs_csv(std::ostream& out, const SimResult& run);
void write_rounds_csv(std::ostream& out, const SimResult& run);

// Writes results.json, records.csv, summary.csv (Results::write) and the run's detail tables.
void write_run_detail_files(OutputDir& out, const SimResult& run, uint64_t seed);

// The table `cluster compare --experiment` prints and its report shows: per policy, the mean and
// sample standard deviation over seeds of the average JCT and makespan, the average JCT in rounds
// (slots) of round_s, the number of runs (seeds), and jobs finished and jobs in all, over all seeds.
TextTable seed_summary_table(const Results& results, double round_s);

}  // namespace dmlkit::cluster
