// Names and formats on screen, in results.json and in the report agree (issue 20; the rule is in
// docs/results-schema.md, "Names on screen and in reports"): every column a run prints with
// --format csv, and every column name under a report table's header, is a metric, input or derived
// name of its results.json, or a unit variant of one (X_ms for X_s, X_pct for a fraction X, X_MB /
// X_GB for X_bytes, X_sd for the spread of X). scripts/check-output-names.py applies the same rule
// to the README tour's outputs.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "apps/cli_test_util.h"
#include "core/html_report.h"

namespace dmlkit::testing {
namespace {

std::set<std::string> results_names(const nlohmann::json& j) {
  std::set<std::string> names{"policy", "scheduler", "algorithm", "name", "seed", "runs", "step"};
  names.insert(j["record_kind"].get<std::string>());
  for (const auto& rec : j["records"]) {
    for (const auto& [k, v] : rec["metrics"].items()) names.insert(k);
    if (rec.contains("params"))
      for (const auto& [k, v] : rec["params"].items()) names.insert(k);
  }
  for (const auto& [k, v] : j["inputs"].items()) names.insert(k);
  if (j.contains("derived"))
    for (const auto& [k, v] : j["derived"].items()) {
      names.insert(k);
      if (v.is_array())
        for (const auto& item : v)
          if (item.is_object())
            for (const auto& [kk, vv] : item.items()) names.insert(kk);
    }
  return names;
}

bool is_results_name(const std::string& col, const std::set<std::string>& names) {
  if (names.count(col)) return true;
  const std::pair<const char*, const char*> units[] = {{"_ms", "_s"}, {"_us", "_s"}, {"_MB", "_bytes"},
                                                       {"_GB", "_bytes"}, {"_pct", ""}, {"_sd", ""}};
  for (const auto& [suffix, repl] : units) {
    const std::string s = suffix;
    if (col.size() > s.size() && col.compare(col.size() - s.size(), s.size(), s) == 0 &&
        names.count(col.substr(0, col.size() - s.size()) + repl))
      return true;
  }
  return false;
}

void expect_names_agree(const std::string& family, std::vector<std::string> args) {
  SCOPED_TRACE(family);
  TempDir dir("names-" + family);
  args.insert(args.end(), {"--out", dir.path("o"), "--format", "csv"});
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto names = results_names(nlohmann::json::parse(slurp(dir.path("o/results.json"))));
  // Detail tables in a report are named as the folder's CSV columns (records.csv excluded: it
  // repeats results.json).
  for (const auto& e : std::filesystem::directory_iterator(dir.path("o"))) {
    if (e.path().extension() != ".csv" || e.path().filename() == "records.csv" || e.path().filename() == "summary.csv")
      continue;
    std::istringstream csv(slurp(e.path().string()));
    std::string head;
    std::getline(csv, head);
    std::stringstream hs(head);
    for (std::string c; std::getline(hs, c, ',');) names.insert(c);
  }
  std::istringstream in(r.out);
  std::string header;
  std::getline(in, header);
  std::stringstream hs(header);
  std::vector<std::string> columns;
  for (std::string col; std::getline(hs, col, ',');) {
    columns.push_back(col);
    EXPECT_TRUE(is_results_name(col, names)) << "printed column '" << col << "'";
  }
  EXPECT_GT(columns.size(), 2u);
  // No negative zero and no percent sign in printed cells (percent columns are named _pct).
  for (std::string line; std::getline(in, line);) {
    EXPECT_EQ(line.find('%'), std::string::npos) << line;
    EXPECT_FALSE(std::regex_search(line, std::regex("(^|,)-0(\\.0+)?(,|$)"))) << line;
  }
  // The report shows each printed column's name under its readable header.
  const std::string html = slurp(dir.path("o/report.html"));
  const std::regex key("<code class=\"key\">([^<]*)</code>");
  size_t keys = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), key); it != std::sregex_iterator(); ++it) {
    ++keys;
    std::string col = (*it)[1].str();
    col = std::regex_replace(col, std::regex("&#39;"), "'");
    EXPECT_TRUE(is_results_name(col, names)) << "report column '" << col << "'";
  }
  EXPECT_GT(keys, 0u);
  // The report's summary table shows every printed name (under its title, or as the title itself).
  for (const auto& col : columns)
    EXPECT_TRUE(html.find("<code class=\"key\">" + col + "</code>") != std::string::npos ||
                html.find("<th scope=\"col\">" + col + "</th>") != std::string::npos)
        << "report lacks column '" << col << "'";
}

TEST(OutputNames, ClusterCommPsAndInfluencePrintResultsNames) {
  expect_names_agree("cluster", {"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy", "fifo"});
  expect_names_agree("comm", {"comm", "compare", "--model", "resnet50", "--schedulers", "fifo,bytescheduler",
                              "--iterations", "3", "--warmup", "1"});
  expect_names_agree("ps", {"ps", "compare", "--model", "vgg16", "--workers", "4", "--servers", "2", "--iterations",
                            "8", "--policies", "mxnet,byteps,psld"});
  TempDir g("names-graph");
  const std::string graph = g.write("g.txt", "6 7\n0 1 0.5\n0 2 0.4\n1 3 0.6\n2 3 0.3\n3 4 0.8\n4 5 0.5\n5 0 0.2\n");
  expect_names_agree("influence", {"influence", "run", "--graph", graph, "--k", "2", "--steps", "10", "--runs", "2",
                                   "--hindsight-rr-sets", "2000"});
}

TEST(OutputNames, ColumnTitlesAreReadableWithUnits) {
  EXPECT_EQ(dmlkit::column_title("avg_jct_s"), "avg jct (s)");
  EXPECT_EQ(dmlkit::column_title("iteration_mean_ms"), "iteration mean (ms)");
  EXPECT_EQ(dmlkit::column_title("distance_to_lower_bound_pct"), "distance to lower bound (%)");
  EXPECT_EQ(dmlkit::column_title("network_GB"), "network (GB)");
  EXPECT_EQ(dmlkit::column_title("migrated_bytes"), "migrated (bytes)");
  EXPECT_EQ(dmlkit::column_title("gpu_utilization"), "gpu utilization");
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

// results.json records every knob of the policies / schedulers run as used, not just those given
// (issue 20): tiresias' defaults depend on the profile, and the recorded values follow it.
TEST(EffectiveKnobs, ResultsRecordEveryKnobAsUsed) {
  TempDir dir("effective-knobs");
  auto inputs = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--out", dir.path("o"), "--format", "json"});
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(slurp(dir.path("o/results.json")))["inputs"];
  };
  const auto def = inputs({"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy", "tiresias"});
  ASSERT_TRUE(def["effective_knobs"].is_object()) << def.dump();
  EXPECT_EQ(def["effective_knobs"]["tiresias.queues"], "3");
  EXPECT_EQ(def["effective_knobs"]["tiresias.thresholds"], "3250,7200,18000");
  EXPECT_TRUE(def["policy_params"].empty());
  const auto pollux = inputs({"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy",
                              "tiresias", "--profile", "pollux", "--policy-param", "tiresias.promote_knob=4"});
  EXPECT_EQ(pollux["effective_knobs"]["tiresias.queues"], "2");  // the pollux profile's default
  EXPECT_EQ(pollux["effective_knobs"]["tiresias.promote_knob"], "4");
  const auto comm = inputs({"comm", "compare", "--model", "resnet50", "--arch", "allreduce", "--schedulers",
                            "fifo,bytescheduler,horovod",
                            "--iterations", "3", "--warmup", "1", "--credit-mb", "8"});
  EXPECT_EQ(comm["effective_knobs"]["--credit-mb"], "8");
  EXPECT_EQ(comm["effective_knobs"]["--cycle-ms"], "5");
  EXPECT_TRUE(comm["effective_knobs"].contains("--partition-mb"));
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

std::string between(const std::string& s, const std::string& open, const std::string& close) {
  const size_t a = s.find(open);
  if (a == std::string::npos) return "";
  const size_t b = s.find(close, a);
  return b == std::string::npos ? "" : s.substr(a, b - a);
}

// `dmlkit report DIR` rebuilds a cluster report from the results folder alone: the same summary
// table (from results.json's metrics) and the same charts with the same number of points; other
// commands are a one-line error naming what it covers.
TEST(ReportCommand, RerendersAClusterReportFromItsResultsFolder) {
  TempDir dir("report-rerender");
  const auto r = run_cli({"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--policies",
                          "fifo,tiresias", "--out", dir.path("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string before = slurp(dir.path("o/report.html"));
  std::filesystem::remove(dir.path("o/report.html"));
  const auto again = run_cli({"report", dir.path("o")});
  ASSERT_EQ(again.status, 0) << again.err;
  const std::string after = slurp(dir.path("o/report.html"));
  const std::string table = between(before, "<div class=\"table-wrap\"><table>", "</table>");
  ASSERT_FALSE(table.empty());
  EXPECT_EQ(between(after, "<div class=\"table-wrap\"><table>", "</table>"), table);
  const auto charts = [](const std::string& page) {
    const size_t tag = page.find("id=\"dmlkit-chart-data\">");
    const size_t start = page.find('>', tag) + 1;
    return nlohmann::json::parse(page.substr(start, page.find("</script>", start) - start));
  };
  const auto a = charts(before), b = charts(after);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GE(a.size(), 3u);
  for (size_t c = 0; c < a.size(); ++c) {
    ASSERT_EQ(a[c]["series"].size(), b[c]["series"].size()) << "chart " << c;
    for (size_t s = 0; s < a[c]["series"].size(); ++s)
      EXPECT_EQ(a[c]["series"][s]["points"].size(), b[c]["series"][s]["points"].size()) << "chart " << c;
  }
  EXPECT_NE(after.find("dmlkit cluster compare --workload pollux-6"), std::string::npos) << "the original command";
  // Other families: one line, exit 2.
  const auto comm = run_cli({"comm", "compare", "--model", "resnet50", "--schedulers", "fifo", "--iterations", "3",
                             "--warmup", "1", "--out", dir.path("c")});
  ASSERT_EQ(comm.status, 0) << comm.err;
  const auto no = run_cli({"report", dir.path("c")});
  EXPECT_EQ(no.status, 2);
  EXPECT_NE(no.err.find("re-renders cluster simulate and cluster compare runs only"), std::string::npos) << no.err;
  EXPECT_EQ(run_cli({"report", dir.path("nowhere")}).status, 2);
}

}  // namespace
}  // namespace dmlkit::testing
