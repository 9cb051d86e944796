// The cluster report's content: chart series computed from hand-made results, the metrics table,
// warnings for unfinished jobs, and argument checks. (Drawing is tested in tests/apps.)
#include <gtest/gtest.h>

#include <stdexcept>

#include "cluster/sim/metrics.h"
#include "cluster/report/report.h"

using namespace dmlkit::cluster;
using dmlkit::ChartSeries;

namespace {

JobRecord report_job(double arrival_s, double finish_s, double executed_s) {
  JobRecord j;
  j.arrival_s = arrival_s;
  j.first_start_s = finish_s < 0 ? -1 : arrival_s;
  j.finish_s = finish_s;
  j.executed_s = executed_s;
  j.gpu_s = executed_s;
  return j;
}

SimResult result(std::string policy) {
  SimResult r;
  r.policy = std::move(policy);
  r.total_gpus = 4;
  // JCTs 2 h, 1 h, unfinished, 3 h.
  r.jobs = {report_job(0, 7200, 3600), report_job(3600, 7200, 3600), report_job(0, -1, 0), report_job(0, 10800, 10800)};
  r.makespan_s = 10800;
  for (int k = 0; k < 4; ++k) {
    RoundSample s;
    s.time_s = 1800.0 * k;
    s.gpus_busy = k;
    s.queued_jobs = 3 - k;
    r.rounds.push_back(s);
  }
  return r;
}

ReportInfo info() {
  ReportInfo i;
  i.workload = "unit <w>";
  i.cluster = "1x4";
  i.profile = "pollux";
  i.seed = 42;
  i.extra = {{"Round length", "60 s"}};
  return i;
}

}  // namespace

TEST(ClusterReport, JctCdfCountsAllJobsAndStartsAtZero) {
  const ChartSeries s = jct_cdf_series(result("fifo"));
  EXPECT_EQ(s.label, "fifo");
  EXPECT_TRUE(s.step);
  EXPECT_EQ(s.x, (std::vector<double>{1, 1, 2, 3}));
  // Three of four jobs finished: the curve stops at 3/4.
  EXPECT_EQ(s.y, (std::vector<double>{0, 0.25, 0.5, 0.75}));
  SimResult none = result("none");
  none.jobs = {report_job(0, -1, 0)};
  EXPECT_TRUE(jct_cdf_series(none).x.empty());
}

TEST(ClusterReport, UtilizationAndQueueFollowTheRounds) {
  const SimResult r = result("fifo");
  const ChartSeries util = gpu_utilization_series(r);
  EXPECT_EQ(util.x, (std::vector<double>{0, 0.5, 1, 1.5}));
  EXPECT_EQ(util.y, (std::vector<double>{0, 25, 50, 75}));
  const ChartSeries queue = queue_length_series(r);
  EXPECT_EQ(queue.x, util.x);
  EXPECT_EQ(queue.y, (std::vector<double>{3, 2, 1, 0}));
}

TEST(ClusterReport, PageHasFactsMetricsWarningsAndThreeCharts) {
  const std::vector<SimResult> results = {result("fifo"), result("<srtf>")};
  const auto report = cluster_report(info(), results, {compute_metrics(results[0]), compute_metrics(results[1])});
  EXPECT_EQ(report.chart_count(), 3u);
  const std::string page = report.render();
  EXPECT_NE(page.find("<dd>unit &lt;w&gt;</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>Cluster</dt><dd>1x4</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>GPUs</dt><dd>4</dd>"), std::string::npos);
  EXPECT_EQ(page.find("downsampled"), std::string::npos);  // 4 rounds: nothing to reduce
  EXPECT_NE(page.find("<dd>pollux</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dd>42</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>Round length</dt><dd>60 s</dd>"), std::string::npos);
  // fifo: JCTs 7200, 3600, 10800 s -> average 7200, median 7200; 1 of 4 unfinished.
  // The screen's summary table (summary_table): avg_jct_s with 4 decimals, then finished and jobs.
  EXPECT_NE(page.find("<tr><td>fifo</td><td class=\"num\">7200.0000</td><td class=\"num\">7200.0</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">3</td><td class=\"num\">4</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<code class=\"key\">gpu_utilization</code>"), std::string::npos);
  EXPECT_NE(page.find("<td>&lt;srtf&gt;</td>"), std::string::npos);
  EXPECT_NE(page.find("Warning: policy fifo left 1 job(s) unfinished"), std::string::npos);
  EXPECT_EQ(page.find("<srtf>"), std::string::npos);
}

TEST(ClusterReport, RejectsMismatchedOrEmptyInput) {
  const std::vector<SimResult> results = {result("fifo")};
  EXPECT_THROW(cluster_report(info(), results, {}), std::invalid_argument);
  EXPECT_THROW(cluster_report(info(), {}, {}), std::invalid_argument);
}

TEST(ClusterReport, NotesDownsamplingOnlyWhenASeriesIsStillLong) {
  SimResult flat = result("flat");
  SimResult busy = result("busy");
  flat.rounds.clear();
  busy.rounds.clear();
  for (int k = 0; k < 5000; ++k) {
    RoundSample s;
    s.time_s = 60.0 * k;
    s.gpus_busy = 2;  // repeats: lossless step compression leaves 2 points
    flat.rounds.push_back(s);
    s.gpus_busy = k % 3;  // changes every round: still 5000 points
    busy.rounds.push_back(s);
  }
  EXPECT_EQ(cluster_report_html(info(), {flat}).find("downsampled"), std::string::npos);
  EXPECT_NE(cluster_report_html(info(), {busy}).find("are downsampled in the charts"), std::string::npos);
}

// Issue 20: a report whose utilization chart is a square wave of preemptions says so.
TEST(ClusterReport, NamesTheMostPreemptedJobsWhenPreemptionDominates) {
  SimResult calm = result("fifo");
  SimResult busy = result("tiresias");
  busy.jobs[3].name = "imagenet-7";
  busy.jobs[3].preemptions = 91;
  busy.jobs[3].restarts = 92;
  busy.jobs[1].name = "bert-2";
  busy.jobs[1].preemptions = 9;
  const std::string quiet = cluster_report_html(info(), {calm});
  EXPECT_EQ(quiet.find("Preemption dominates"), std::string::npos);
  const std::string html = cluster_report_html(info(), {calm, busy});
  EXPECT_NE(html.find("Preemption dominates (tiresias)"), std::string::npos);
  const size_t first = html.find("imagenet-7"), second = html.find("bert-2");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);  // most preempted first
  EXPECT_NE(html.find("<td class=\"num\">91</td>"), std::string::npos);
}
