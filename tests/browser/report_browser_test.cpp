// Opens a cluster report in headless Chromium and checks, from the DOM Chromium dumps after
// running the page, that every chart was drawn (with its data, on a canvas of non-zero size), that
// the page logged no error, and that a hostile policy name stayed text. Chromium comes from
// scripts/install-deps.sh; without it the test fails, unless DMLKIT_SKIP_BROWSER_TESTS=1.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/sim/metrics.h"
#include "cluster/report/report.h"
#include "cluster/sim/simulator.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/subprocess.h"
#include "browser/browser_util.h"

namespace fs = std::filesystem;
using namespace dmlkit::cluster;

using namespace dmlkit::browser;

namespace {

// Would set <body data-pwned> if the name were ever interpreted as markup.
const std::string kHostilePolicy = "<img src=x onerror=\"document.body.dataset.pwned=1\">fifo</script>";

dmlkit::cluster::JobRecord job(int id, double arrival_s, double start_s, double finish_s, int gpus, int preemptions) {
  JobRecord j;
  j.id = id;
  j.name = "job-" + std::to_string(id);
  j.application = "cifar10";
  j.num_gpus = gpus;
  j.arrival_s = arrival_s;
  j.first_start_s = start_s;
  j.finish_s = finish_s;
  j.executed_s = finish_s < 0 ? 0 : finish_s - start_s;
  j.gpu_s = j.executed_s * gpus;
  j.preemptions = preemptions;
  return j;
}

// Two hand-made runs of four jobs on 8 GPUs, with rounds every 10 minutes.
std::vector<SimResult> hand_made_results() {
  SimResult fifo;
  fifo.policy = kHostilePolicy;
  fifo.total_gpus = 8;
  fifo.jobs = {job(0, 0, 0, 3600, 4, 0), job(1, 600, 600, 5400, 4, 0), job(2, 1200, 3600, 9000, 8, 0),
               job(3, 1800, 9000, 10800, 2, 0)};
  SimResult srtf = fifo;
  srtf.policy = "srtf";
  srtf.jobs = {job(0, 0, 0, 4200, 4, 1), job(1, 600, 600, 5400, 4, 0), job(2, 1200, 5400, 10200, 8, 0),
               job(3, 1800, 1800, 3600, 2, 0)};
  for (SimResult* r : {&fifo, &srtf}) {
    double last = 0;
    for (const auto& j : r->jobs) last = std::max(last, j.finish_s);
    r->makespan_s = last;
    for (double t = 0; t <= last; t += 600) {
      RoundSample s;
      s.time_s = t;
      for (const auto& j : r->jobs) {
        if (j.arrival_s > t || j.finish_s <= t) continue;
        if (j.first_start_s <= t) {
          s.gpus_busy += j.num_gpus;
          ++s.running_jobs;
        } else {
          ++s.queued_jobs;
        }
      }
      r->rounds.push_back(s);
    }
  }
  return {fifo, srtf};
}

dmlkit::HtmlReport hand_made_report() {
  ReportInfo info;
  info.workload = "hand-made <b>pair</b>";
  info.cluster = "2x4";
  info.profile = "default";
  info.seed = 7;
  const auto results = hand_made_results();
  std::vector<Metrics> metrics;
  for (const auto& r : results) metrics.push_back(compute_metrics(r));
  return cluster_report(info, results, metrics);
}

}  // namespace

TEST(ReportBrowser, ChartsAreDrawnWithoutErrorsInHeadlessChromium) {
  const std::string chromium = chromium_or_skip();
  if (chromium.empty()) GTEST_SKIP() << "DMLKIT_SKIP_BROWSER_TESTS=1";

  const dmlkit::HtmlReport report = hand_made_report();
  ASSERT_EQ(report.chart_count(), 3u);
  TempDir dir;
  const fs::path page = dir.path / "report.html";
  dmlkit::write_file_atomic(page.string(), report.render());
  const std::string dom = dump_dom(chromium, dir, page);
  ASSERT_FALSE(dom.empty());

  const auto body = body_of(dom);
  // The error recorder ran and recorded nothing.
  EXPECT_EQ(attr(body, "data-error-count"), "0") << "page errors: " << attr(body, "data-errors");
  EXPECT_EQ(attr(body, "data-charts-expected"), "3");
  EXPECT_EQ(attr(body, "data-charts-drawn"), "3");
  EXPECT_EQ(body.count("data-pwned"), 0u) << "a policy name was interpreted as HTML";

  // Each canvas was laid out, painted, and holds all the points of its series.
  const auto results = hand_made_results();
  std::vector<size_t> expected_points(3, 0);
  for (const auto& r : results) {
    expected_points[0] += dmlkit::reduce_series(jct_cdf_series(r), 2000).x.size();
    expected_points[1] += dmlkit::reduce_series(gpu_utilization_series(r), 2000).x.size();
    expected_points[2] += dmlkit::reduce_series(queue_length_series(r), 2000).x.size();
  }
  const auto canvases = tags(dom, "<canvas[^>]*>");
  ASSERT_EQ(canvases.size(), 3u);
  for (size_t i = 0; i < canvases.size(); ++i) {
    const auto& c = canvases[i];
    EXPECT_EQ(attr(c, "data-drawn"), "1") << "canvas " << i;
    EXPECT_GT(number(c, "width"), 0) << "canvas " << i;
    EXPECT_GT(number(c, "height"), 0) << "canvas " << i;
    EXPECT_GT(number(c, "data-ink"), 1000) << "canvas " << i << " is (nearly) blank";
    EXPECT_EQ(number(c, "data-points"), static_cast<long>(expected_points[i])) << "canvas " << i;
  }
  // The hostile names are shown as text.
  EXPECT_NE(dom.find("&lt;img src=x onerror="), std::string::npos);
  EXPECT_NE(dom.find("hand-made &lt;b&gt;pair&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(tags(dom, "<img[^>]*>").size(), 0u);
  EXPECT_EQ(tags(dom, "<b>").size(), 0u);
}

// The checks above can fail: a script error is recorded, and without Chart.js no chart is drawn.
TEST(ReportBrowser, ErrorsAndUndrawnChartsAreDetected) {
  const std::string chromium = chromium_or_skip();
  if (chromium.empty()) GTEST_SKIP() << "DMLKIT_SKIP_BROWSER_TESTS=1";
  const std::string html = hand_made_report().render();
  TempDir dir;

  std::string broken = html;
  const size_t body_end = broken.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  broken.insert(body_end, "<script>dmlkitNoSuchFunction();</script>\n");
  const fs::path broken_page = dir.path / "broken.html";
  dmlkit::write_file_atomic(broken_page.string(), broken);
  const auto broken_body = body_of(dump_dom(chromium, dir, broken_page));
  EXPECT_EQ(attr(broken_body, "data-error-count"), "1");
  EXPECT_NE(attr(broken_body, "data-errors").find("dmlkitNoSuchFunction"), std::string::npos);
  EXPECT_EQ(attr(broken_body, "data-charts-drawn"), "3");

  // Replace the inlined Chart.js bundle by an empty script.
  std::string no_chartjs = html;
  const size_t marker = no_chartjs.find("Chart.js v");
  ASSERT_NE(marker, std::string::npos);
  const size_t open = no_chartjs.rfind("<script>", marker);
  const size_t close = no_chartjs.find("</script>", marker);
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  no_chartjs.replace(open, close - open, "<script>");
  const fs::path no_chartjs_page = dir.path / "no-chartjs.html";
  dmlkit::write_file_atomic(no_chartjs_page.string(), no_chartjs);
  const auto no_chartjs_body = body_of(dump_dom(chromium, dir, no_chartjs_page));
  EXPECT_EQ(attr(no_chartjs_body, "data-charts-drawn"), "0");
  EXPECT_EQ(attr(no_chartjs_body, "data-error-count"), "1");
  EXPECT_NE(attr(no_chartjs_body, "data-errors").find("Chart.js is not available"), std::string::npos);
}
