// The cluster comparison report: one self-contained HTML page comparing policies run on the same
// workload and cluster -- a table of summary metrics, the JCT CDF per policy, and GPU utilization
// and queue length over time (docs/report.md).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "core/html_report.h"
#include "core/table.h"

namespace dmlkit::cluster {

// What was run, shown at the top of the report. Every string is HTML-escaped when rendered.
struct ReportInfo {
  std::string workload;  // workload name or path as the user gave it (e.g. "pollux-6")
  std::string cluster;   // cluster spec as given (e.g. "16x4" or a file path)
  std::string profile;   // simulation profile ("default" or "pollux")
  uint64_t seed = 0;
  // More facts shown after the ones above, in order (e.g. {"Round length", "60 s"}).
  std::vector<std::pair<std::string, std::string>> extra;
};

// The summary table, the same on screen (`--format table|csv`) and in the report: one row per
// policy, its columns named as results.json's metrics (docs/results-schema.md, "Names on screen"):
// policy, avg_jct_s (4 decimals, to compare with published tables), median/p95/p99_jct_s,
// makespan_s and avg_queue_s (0.1 s), gpu_utilization (a fraction, 3 decimals), preemptions,
// finished, jobs.
TextTable summary_table(const std::vector<SimResult>& results, const std::vector<Metrics>& metrics);

// Builds the report; results[i] and metrics[i] describe the same policy (the report's order).
// Throws std::invalid_argument if the two vectors differ in size or are empty.
HtmlReport cluster_report(const ReportInfo& info, const std::vector<SimResult>& results,
                          const std::vector<Metrics>& metrics);

// The rendered page (cluster_report(...).render()). Throws Error if Chart.js cannot be read.
std::string cluster_report_html(const ReportInfo& info, const std::vector<SimResult>& results,
                                const std::vector<Metrics>& metrics);
// Same, with the metrics computed by compute_metrics().
std::string cluster_report_html(const ReportInfo& info, const std::vector<SimResult>& results);

// The chart data, exposed for tests. JCT CDF: for each finished job in JCT order, the fraction of
// all jobs finished within that JCT (hours), starting at (first JCT, 0); drawn as steps, so it
// tops out below 1 when jobs did not finish.
ChartSeries jct_cdf_series(const SimResult& result);
// Busy GPUs in percent of result.total_gpus at each round (time in hours), drawn as steps.
ChartSeries gpu_utilization_series(const SimResult& result);
// Jobs waiting (arrived, unfinished, not running) at each round (time in hours), drawn as steps.
ChartSeries queue_length_series(const SimResult& result);

}  // namespace dmlkit::cluster
