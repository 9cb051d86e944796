// One headless-Chromium test per report family (issue 20): a tiny run of the dmlkit program writes
// the family's report.html, Chromium runs the page, and the DOM it dumps must show every chart
// drawn (each canvas painted and holding points or bars) and no page error. `ctest -L browser`
// selects these; they run in CI with the rest (`make test`).
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "browser/browser_util.h"
#include "core/data_dir.h"
#include "core/output_dir.h"
#include "core/subprocess.h"

using namespace dmlkit::browser;

namespace {

struct Family {
  std::string name;
  std::vector<std::string> args;  // after the program; --out <dir>/out is appended (sweep: the sweep folder)
  std::string report = "report.html";
  size_t min_charts = 1;
  bool gantt = false;  // the report holds Gantt charts (floating bars)
  std::string file;    // written to <dir>/input.yaml, which "@FILE" in args stands for
  bool rerender = false;  // report.html deleted and re-rendered by `dmlkit report <dir>/out` first
};

// gtest prints a failing parameter by its name.
void PrintTo(const Family& f, std::ostream* os) { *os << f.name; }

std::string data(const std::string& rel) { return dmlkit::data_path(rel); }

std::vector<Family> families() {
  return {
      {"cluster", {"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy", "tiresias"}, "report.html",
       3},
      {"comm",
       {"comm", "compare", "--model", "resnet50", "--schedulers", "fifo,bytescheduler", "--iterations", "3", "--warmup",
        "1"},
       "report.html",
       2,
       true},
      {"ps",
       {"ps", "compare", "--model", "vgg16", "--workers", "4", "--servers", "2", "--iterations", "8", "--stragglers",
        "rotating", "--policies", "mxnet,psld"}},
      {"gnn",
       {"gnn", "compare", "--graph", "cora", "--partitions", "2", "--machines", "4", "--devices", "v100:2,k80:2",
        "--batch", "256", "--feature-dim", "64", "--placements", "colocate,greedy", "--sim-iterations", "4"},
       "report.html",
       2,
       true},
      {"influence",
       {"influence", "run", "--graph", "ba:nodes=300,m=3", "--dynamics", "weighted-cascade", "--k", "2", "--steps", "10", "--runs", "2",
        "--hindsight-rr-sets", "2000"}},
      {"continual",
       {"continual", "angle-sweep", "--angles", "30,90", "--variants", "cl,replay", "--epochs", "20", "--test-per-task",
        "50", "--runs", "2", "--backend", "eigen"}},
      {"football",
       {"football", "evaluate", "--lines", data("football/appsync/so0102sim_match_02.json"), "--tagger", "keywords"}},
      // A numeric axis (the round length), so the sweep report has charts.
      {"sweep",
       {"sweep", "run", "@FILE", "--jobs", "1"},
       "report.html",
       1,
       false,
       "command: cluster simulate\nargs: {cluster: 16x4, workload: pollux-1, policy: fifo}\naxes:\n  round: [30, 120]\n"
       "  seed: [1, 2]\n"},
      // `dmlkit report DIR` (report.json): a re-rendered page draws the same way (lines and Gantt).
      {"comm_rerendered",
       {"comm", "compare", "--model", "resnet50", "--schedulers", "fifo,p3", "--iterations", "3", "--warmup", "1"},
       "report.html",
       2,
       true,
       "",
       true},
      {"cluster_rerendered",
       {"cluster", "compare", "--workload", "pollux-1", "--cluster", "16x4", "--policies", "fifo,tiresias"},
       "report.html",
       3,
       false,
       "",
       true},
  };
}

class ReportFamily : public ::testing::TestWithParam<Family> {};

TEST_P(ReportFamily, ChartsAreDrawnWithoutPageErrors) {
  const Family& f = GetParam();
  const std::string chromium = chromium_or_skip();
  if (chromium.empty()) GTEST_SKIP() << "DMLKIT_SKIP_BROWSER_TESTS=1";
  TempDir dir;
  const std::string out = (dir.path / "out").string();
  std::vector<std::string> argv{DMLKIT_BINARY};
  argv.insert(argv.end(), f.args.begin(), f.args.end());
  if (!f.file.empty()) {
    const std::string file = (dir.path / "input.yaml").string();
    dmlkit::write_file_atomic(file, f.file);
    for (auto& a : argv)
      if (a == "@FILE") a = file;
  }
  argv.insert(argv.end(), {"--out", out});
  const dmlkit::ProcessResult run = dmlkit::run_process(argv, {}, 300);
  ASSERT_TRUE(run.ok()) << f.name << ": " << run.err;
  const fs::path page = fs::path(out) / f.report;
  if (f.rerender) {
    fs::remove(page);
    const dmlkit::ProcessResult again = dmlkit::run_process({DMLKIT_BINARY, "report", out}, {}, 120);
    ASSERT_TRUE(again.ok()) << f.name << ": " << again.err;
  }
  ASSERT_TRUE(fs::exists(page)) << page;
  const std::string html = dmlkit::read_file(page.string());
  EXPECT_EQ(html.find("\"kind\":\"gantt\"") != std::string::npos, f.gantt) << "Gantt charts in " << f.name;

  const std::string dom = dump_dom(chromium, dir, page);
  ASSERT_FALSE(dom.empty());
  const auto body = body_of(dom);
  EXPECT_EQ(attr(body, "data-error-count"), "0") << f.name << " page errors: " << attr(body, "data-errors");
  const long expected = number(body, "data-charts-expected");
  EXPECT_GE(expected, static_cast<long>(f.min_charts)) << f.name;
  EXPECT_EQ(number(body, "data-charts-drawn"), expected) << f.name;
  const auto canvases = tags(dom, "<canvas[^>]*>");
  EXPECT_EQ(static_cast<long>(canvases.size()), expected) << f.name;
  for (size_t i = 0; i < canvases.size(); ++i) {
    const auto& c = canvases[i];
    EXPECT_EQ(attr(c, "data-drawn"), "1") << f.name << " canvas " << i;
    EXPECT_GT(number(c, "height"), 0) << f.name << " canvas " << i;
    EXPECT_GT(number(c, "data-ink"), 1000) << f.name << " canvas " << i << " is (nearly) blank";
    EXPECT_GT(number(c, "data-points"), 0) << f.name << " canvas " << i << " holds no point or bar";
  }
}

INSTANTIATE_TEST_SUITE_P(Browser, ReportFamily, ::testing::ValuesIn(families()),
                         [](const ::testing::TestParamInfo<Family>& info) { return info.param.name; });

}  // namespace
