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
#include "cluster/workload/experiment.h"
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
      if (v.is_object())
        for (const auto& [kk, vv] : v.items()) names.insert(kk);
      if (v.is_array() || v.is_object())  // derived.algorithms[i], derived.per_class[label]
        for (const auto& item : v)
          if (item.is_object())
            for (const auto& [kk, vv] : item.items()) names.insert(kk);
    }
  return names;
}

bool is_results_name(const std::string& col, const std::set<std::string>& names) {
  if (names.count(col)) return true;
  const std::pair<const char*, const char*> units[] = {{"_ms", "_s"},   {"_us", "_s"},    {"_slots", "_s"},
                                                       {"_MB", "_bytes"}, {"_GB", "_bytes"}, {"_pct", ""},
                                                       {"_sd", ""},     {"_mean", ""},    {"_min", ""},
                                                       {"_max", ""}};
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

// The families whose tables kept their own names until issue 20's last pass: continual, football,
// the OASiS model and experiment presets (the sweep's table: tests/sweep/collect_test.cpp).
TEST(OutputNames, ContinualFootballOasisAndExperimentsPrintResultsNames) {
  expect_names_agree("continual", {"continual", "angle-sweep", "--angles", "30,120", "--epochs", "1", "--runs", "2"});
  TempDir f("names-football");
  const std::string lines = f.write("lines.csv",
                                    "minute,text,label\n3',Corner awarded to the home side.,corner\n"
                                    "10',\"Goal! Smith scores with a header.\",goal\n"
                                    "22',Brown is booked for a late tackle.,card\n");
  expect_names_agree("football", {"football", "evaluate", "--lines", lines, "--tagger", "keywords"});
  TempDir e("names-experiment");
  const std::string oasis = e.write(
      "oasis-tiny.yaml",
      "experiment: oasis-tiny\nengine: oasis\ndescription: test\nseeds: [1, 2]\n"
      "policies: [oasis, fifo]\nhorizon_slots: 20\n"
      "cluster:\n  worker_servers: 3\n  ps_servers: 1\n"
      "  worker_server: {gpus: 4, cpus: 16, mem_gb: 64, net_gbps: 10}\n"
      "  ps_server: {gpus: 0, cpus: 16, mem_gb: 64, net_gbps: 10}\n"
      "loads: [1]\nservers: [4]\n"
      "workload:\n  load: 1\n  arrivals: poisson\n  arrival_slots: 10\n  chunks: [2, 6]\n"
      "  per_worker_slots: [1, 4]\n  workers_per_ps: [2, 4]\n  target_slots: [1, 4]\n");
  expect_names_agree("oasis", {"cluster", "compare", "--experiment", oasis});
  const std::string exp = e.write(
      "exp.yaml", "experiment: tiny\ndescription: test\ncluster: " + dmlkit::cluster::default_experiments_dir() +
                      "/clusters/optimus-testbed.yaml\nseeds: [1, 2]\npolicies: [drf, fifo]\n"
                      "round_s: 600\nworkload:\n  num_jobs: 4\n  arrivals: window\n  window_slots: 2\n"
                      "  slot_s: 600\n  max_num_epochs: 1000\n  demands: testbed\n");
  expect_names_agree("experiment", {"cluster", "compare", "--experiment", exp});
}

// The experiment report's per-run table (records at full precision in records.csv) is shown with
// one precision per column, and the summary splits finished and jobs into two columns.
TEST(OutputNames, ExperimentTablesRoundAndSplitFinishedFromJobs) {
  TempDir e("experiment-precision");
  const std::string exp = e.write(
      "exp.yaml", "experiment: tiny\ndescription: test\ncluster: " + dmlkit::cluster::default_experiments_dir() +
                      "/clusters/optimus-testbed.yaml\nseeds: [1, 2]\npolicies: [drf, fifo]\n"
                      "round_s: 600\nworkload:\n  num_jobs: 4\n  arrivals: window\n  window_slots: 2\n"
                      "  slot_s: 600\n  max_num_epochs: 1000\n  demands: testbed\n");
  const auto r = run_cli({"cluster", "compare", "--experiment", exp, "--out", e.path("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::regex ratio("\\b[0-9]+/[0-9]+\\b");
  EXPECT_FALSE(std::regex_search(r.out.substr(0, r.out.find("results:")), ratio)) << r.out;
  EXPECT_NE(r.out.find("finished"), std::string::npos);
  EXPECT_NE(r.out.find("jobs"), std::string::npos);
  const std::string html = slurp(e.path("o/report.html"));
  // Every number in the report's tables has at most 3 decimals (records.csv keeps full precision).
  const std::regex long_number("<td class=\"num\">-?[0-9]+\\.[0-9]{4,}</td>");
  EXPECT_FALSE(std::regex_search(html, long_number));
  EXPECT_EQ(html.find("<td class=\"num\">-0.0"), std::string::npos);
  const std::string records = slurp(e.path("o/records.csv"));
  EXPECT_TRUE(std::regex_search(records, std::regex("[0-9]\\.[0-9]{5,}"))) << "records.csv at full precision";
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
  EXPECT_EQ(comm["effective_knobs"]["bytescheduler.credit-mb"], "8");
  // Architecture-dependent defaults are recorded as resolved values, not as their description.
  EXPECT_EQ(comm["effective_knobs"]["bytescheduler.partition-mb"], "32");  // all-reduce default
  EXPECT_EQ(comm["effective_knobs"]["horovod.cycle-ms"], "5");
  EXPECT_EQ(comm["effective_knobs"]["horovod.fusion-mb"], "64");
  const auto ps = inputs({"comm", "compare", "--model", "resnet50", "--arch", "ps", "--servers", "4", "--schedulers",
                          "bytescheduler,p3", "--iterations", "3", "--warmup", "1"});
  EXPECT_EQ(ps["effective_knobs"]["bytescheduler.partition-mb"], "4");
  EXPECT_EQ(ps["effective_knobs"]["bytescheduler.credit-mb"], "16");
  EXPECT_EQ(ps["effective_knobs"]["p3.partition-mb"], "0.2");
  EXPECT_EQ(ps["effective_knobs"]["p3.credit-mb"], "0.8");  // one 0.2 MB slice per server
  const auto pace = inputs({"comm", "compare", "--model", "resnet50", "--arch", "allreduce", "--schedulers", "pace",
                            "--iterations", "3", "--warmup", "1"});
  const std::string unit = pace["effective_knobs"]["pace.partition-mb"].get<std::string>();
  EXPECT_NE(unit.find_first_of("0123456789"), std::string::npos) << unit;  // the oracle's pick, a number
  for (const auto& [k, v] : comm["effective_knobs"].items())
    EXPECT_EQ(v.get<std::string>().find('('), std::string::npos) << k << ": " << v;
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

nlohmann::json chart_data(const std::string& page) {
  const size_t tag = page.find("id=\"dmlkit-chart-data\">");
  const size_t start = page.find('>', tag) + 1;
  return nlohmann::json::parse(page.substr(start, page.find("</script>", start) - start));
}

// `dmlkit report DIR` re-renders any family's report from its folder (report.json, one mechanism):
// the same tables and the same chart data, and the footer names the run's command line, not
// `dmlkit report`. A folder without report.json, a malformed one, or no folder: one line, exit 2.
TEST(ReportCommand, RerendersEveryFamilysReportFromItsResultsFolder) {
  TempDir dir("report-rerender");
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"cluster", {"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--policies", "fifo,tiresias"}},
      {"comm", {"comm", "compare", "--model", "resnet50", "--schedulers", "fifo,bytescheduler", "--iterations", "3",
                "--warmup", "1"}},
      {"ps", {"ps", "compare", "--model", "vgg16", "--workers", "4", "--servers", "2", "--iterations", "8", "--policies",
              "mxnet,psld"}},
      {"continual", {"continual", "angle-sweep", "--angles", "30,120", "--epochs", "1", "--runs", "2"}},
  };
  for (const auto& [name, args] : runs) {
    SCOPED_TRACE(name);
    auto a = args;
    a.insert(a.end(), {"--out", dir.path(name)});
    const auto r = run_cli(a);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string before = slurp(dir.path(name + "/report.html"));
    ASSERT_TRUE(std::filesystem::exists(dir.path(name + "/report.json")));
    std::filesystem::remove(dir.path(name + "/report.html"));
    const auto again = run_cli({"report", dir.path(name)});
    ASSERT_EQ(again.status, 0) << again.err;
    const std::string after = slurp(dir.path(name + "/report.html"));
    EXPECT_EQ(between(after, "<main>", "</main>"), between(before, "<main>", "</main>")) << "same blocks and footer";
    const auto ca = chart_data(before), cb = chart_data(after);
    EXPECT_EQ(ca, cb) << "same chart data";
    EXPECT_GE(ca.size(), 1u);
    EXPECT_NE(after.find("dmlkit " + args[0] + " " + args[1]), std::string::npos) << "the original command";
    EXPECT_EQ(after.find("dmlkit report"), std::string::npos);
  }
  // Not a report folder, a malformed model, no folder: one line, exit 2.
  std::filesystem::remove(dir.path("comm/report.json"));
  auto no = run_cli({"report", dir.path("comm")});
  EXPECT_EQ(no.status, 2);
  EXPECT_NE(no.err.find("report.json: missing"), std::string::npos) << no.err;
  dir.write("continual/report.json", "{\"schema\": \"dmlkit-report\", \"schema_version\": 1, \"title\": \"x\", "
                                     "\"blocks\": [{\"kind\": \"heading\"}]}");
  no = run_cli({"report", dir.path("continual")});
  EXPECT_EQ(no.status, 2);
  EXPECT_NE(no.err.find("blocks[0].text: missing"), std::string::npos) << no.err;
  EXPECT_EQ(std::count(no.err.begin(), no.err.end(), '\n'), 1) << no.err;
  EXPECT_EQ(run_cli({"report", dir.path("nowhere")}).status, 2);
}

}  // namespace
}  // namespace dmlkit::testing
