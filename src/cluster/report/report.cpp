// Assembles the cluster comparison report from simulation results (see report.h).
#include "cluster/report/report.h"

#include <algorithm>
#include <stdexcept>

#include "core/table.h"

namespace dmlkit::cluster {
namespace {

constexpr double kSecondsPerHour = 3600.0;
constexpr size_t kNoLimit = static_cast<size_t>(-1);

std::string join(const std::vector<SimResult>& results) {
  std::string out;
  for (const auto& r : results) {
    if (!out.empty()) out += ", ";
    out += r.policy;
  }
  return out;
}

// When a few jobs are preempted over and over (tiresias on pollux-6: three jobs 91-108 times each),
// the utilization chart is a square wave; the report names those jobs instead of leaving it
// unexplained. Shown for a policy whose most preempted job has at least kManyPreemptions [A].
constexpr int kManyPreemptions = 10;
constexpr size_t kTopPreempted = 3;

void add_preemption_note(HtmlReport& report, const std::vector<SimResult>& results) {
  std::vector<std::vector<std::string>> rows;
  std::string policies;
  for (const auto& r : results) {
    std::vector<const JobRecord*> jobs;
    for (const auto& j : r.jobs) jobs.push_back(&j);
    const size_t top = std::min(kTopPreempted, jobs.size());
    std::partial_sort(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(top), jobs.end(),
                      [](const JobRecord* a, const JobRecord* b) {
                        return a->preemptions != b->preemptions ? a->preemptions > b->preemptions : a->id < b->id;
                      });
    if (top == 0 || jobs.front()->preemptions < kManyPreemptions) continue;
    policies += (policies.empty() ? "" : ", ") + r.policy;
    for (size_t i = 0; i < top; ++i) {
      const JobRecord& j = *jobs[i];
      rows.push_back({r.policy, j.name, std::to_string(j.num_gpus), std::to_string(j.preemptions),
                      std::to_string(j.restarts), j.finished() ? fixed(j.jct_s(), 1) : "unfinished"});
    }
  }
  if (rows.empty()) return;
  report.add_heading("Preemption dominates (" + policies + ")");
  report.add_paragraph(
      "A few jobs were preempted over and over; the square waves in the utilization and queue charts are "
      "these jobs being stopped and started again. Starts counts every start on a new placement, the first "
      "one included; each start after a preemption pays the restart delay.");
  report.add_table({"Policy", "Job", "GPUs", "Preemptions", "Starts", "JCT (s)"}, std::move(rows),
                   "the most preempted jobs of each policy with a job preempted at least " +
                       std::to_string(kManyPreemptions) + " times");
}

}  // namespace

ChartSeries jct_cdf_series(const SimResult& result) {
  ChartSeries s;
  s.label = result.policy;
  s.step = true;
  std::vector<double> jcts_h;
  jcts_h.reserve(result.jobs.size());
  for (const auto& j : result.jobs)
    if (j.finished()) jcts_h.push_back(j.jct_s() / kSecondsPerHour);
  if (jcts_h.empty()) return s;
  std::sort(jcts_h.begin(), jcts_h.end());
  const double n = static_cast<double>(result.jobs.size());
  s.x.reserve(jcts_h.size() + 1);
  s.y.reserve(jcts_h.size() + 1);
  s.x.push_back(jcts_h.front());
  s.y.push_back(0.0);
  for (size_t i = 0; i < jcts_h.size(); ++i) {
    s.x.push_back(jcts_h[i]);
    s.y.push_back(static_cast<double>(i + 1) / n);
  }
  return s;
}

ChartSeries gpu_utilization_series(const SimResult& result) {
  ChartSeries s;
  s.label = result.policy;
  s.step = true;
  s.x.reserve(result.rounds.size());
  s.y.reserve(result.rounds.size());
  for (const auto& round : result.rounds) {
    s.x.push_back(round.time_s / kSecondsPerHour);
    s.y.push_back(result.total_gpus > 0 ? 100.0 * round.gpus_busy / result.total_gpus : 0.0);
  }
  return s;
}

ChartSeries queue_length_series(const SimResult& result) {
  ChartSeries s;
  s.label = result.policy;
  s.step = true;
  s.x.reserve(result.rounds.size());
  s.y.reserve(result.rounds.size());
  for (const auto& round : result.rounds) {
    s.x.push_back(round.time_s / kSecondsPerHour);
    s.y.push_back(round.queued_jobs);
  }
  return s;
}

TextTable summary_table(const std::vector<SimResult>& results, const std::vector<Metrics>& metrics) {
  TextTable t({"policy", "avg_jct_s", "median_jct_s", "p95_jct_s", "p99_jct_s", "makespan_s", "avg_queue_s",
               "gpu_utilization", "preemptions", "finished", "jobs"});
  for (size_t i = 0; i < results.size() && i < metrics.size(); ++i) {
    const auto& m = metrics[i];
    // Statistics over finished jobs, the makespan and the utilization over it: blank when none
    // finished (never 0).
    auto jct = [&m](double v, int digits) { return m.finished > 0 ? fixed(v, digits) : std::string(); };
    t.add_row({results[i].policy, jct(m.avg_jct_s, 4), jct(m.median_jct_s, 1), jct(m.p95_jct_s, 1), jct(m.p99_jct_s, 1),
               jct(m.makespan_s, 1), jct(m.avg_queue_s, 1), jct(m.gpu_utilization, 3), std::to_string(m.preemptions),
               std::to_string(m.finished), std::to_string(m.jobs)});
  }
  return t;
}

HtmlReport cluster_report(const ReportInfo& info, const std::vector<SimResult>& results,
                          const std::vector<Metrics>& metrics) {
  if (results.empty()) throw std::invalid_argument("cluster_report: no results");
  if (results.size() != metrics.size())
    throw std::invalid_argument("cluster_report: results and metrics differ in size");

  const SimResult& first = results.front();
  HtmlReport report("Cluster scheduling report: " + info.workload);

  std::vector<std::pair<std::string, std::string>> facts = {
      {"Workload", info.workload},
      {"Jobs", std::to_string(first.jobs.size()) +
                   (first.dropped_oversized > 0
                        ? " (" + std::to_string(first.dropped_oversized) + " larger than the cluster dropped)"
                        : std::string())},
      {"Cluster", info.cluster},
      {"GPUs", std::to_string(first.total_gpus)},
      {"Simulation profile", info.profile},
      {"Seed", std::to_string(info.seed)},
      {"Policies", join(results)},
  };
  facts.insert(facts.end(), info.extra.begin(), info.extra.end());
  report.add_facts(std::move(facts));

  for (const auto& r : results) {
    const size_t unfinished = static_cast<size_t>(
        std::count_if(r.jobs.begin(), r.jobs.end(), [](const JobRecord& j) { return !j.finished(); }));
    if (r.timed_out || unfinished > 0)
      report.add_paragraph("Warning: policy " + r.policy + " left " + std::to_string(unfinished) +
                           " job(s) unfinished" + (r.timed_out ? " (the simulation reached its time limit)" : "") +
                           "; its JCT metrics cover finished jobs only.");
  }

  report.add_heading("Summary metrics");
  report.add_table(summary_table(results, metrics));
  report.add_paragraph(
      "JCT (job completion time) is finish minus arrival of each finished job; percentiles interpolate "
      "linearly between order statistics. Queueing delay is JCT minus the time a job held GPUs. GPU "
      "utilization is GPU-seconds held divided by total GPUs times makespan; makespan is the last finish "
      "minus the first arrival.");

  LineChart cdf;
  cdf.title = "JCT CDF";
  cdf.x_title = "Job completion time (h)";
  cdf.y_title = "Fraction of jobs finished";
  cdf.x_min = 0;
  cdf.y_min = 0;
  cdf.y_max = 1;
  LineChart util;
  util.title = "GPU utilization over time";
  util.x_title = "Simulated time (h)";
  util.y_title = "GPUs busy (%)";
  util.y_min = 0;
  util.y_max = 100;
  LineChart queue;
  queue.title = "Queue length over time";
  queue.x_title = "Simulated time (h)";
  queue.y_title = "Jobs waiting";
  queue.y_min = 0;
  queue.y_integer = true;
  size_t longest = 0;
  // The charts hold each series already reduced (rounds that repeat the held value dropped), not
  // one point per round: render() reduces again and gets the same points (reduce_series is
  // idempotent), and a long run's page costs one pass and the changed points only.
  for (const auto& r : results) {
    cdf.series.push_back(reduce_series(jct_cdf_series(r), kNoLimit));
    util.series.push_back(reduce_series(gpu_utilization_series(r), kNoLimit));
    queue.series.push_back(reduce_series(queue_length_series(r), kNoLimit));
    for (const LineChart* chart : {&cdf, &util, &queue}) longest = std::max(longest, chart->series.back().x.size());
  }

  report.add_heading("Job completion times");
  report.add_chart(std::move(cdf));
  report.add_heading("Cluster over time");
  report.add_paragraph(
      "One point per scheduling decision (rounds, and arrivals and completions where the profile re-plans on "
      "them); each value holds until the next decision.");
  report.add_chart(std::move(util));
  report.add_chart(std::move(queue));
  add_preemption_note(report, results);
  if (longest > HtmlReport::kDefaultMaxPointsPerSeries)
    report.add_paragraph("Series with more than " + std::to_string(HtmlReport::kDefaultMaxPointsPerSeries) +
                         " points (after dropping rounds that repeat the previous value) are downsampled in "
                         "the charts, keeping first and last points and peaks (see docs/report.md); the "
                         "table uses every job.");
  return report;
}

std::string cluster_report_html(const ReportInfo& info, const std::vector<SimResult>& results,
                                const std::vector<Metrics>& metrics) {
  return cluster_report(info, results, metrics).render();
}

std::string cluster_report_html(const ReportInfo& info, const std::vector<SimResult>& results) {
  std::vector<Metrics> metrics;
  metrics.reserve(results.size());
  for (const auto& r : results) metrics.push_back(compute_metrics(r));
  return cluster_report_html(info, results, metrics);
}

}  // namespace dmlkit::cluster
