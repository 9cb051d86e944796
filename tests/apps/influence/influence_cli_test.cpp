// End-to-end tests of `dmlkit influence ...` run in-process: the output folder, determinism, and
// bad input (one line naming file, line and field; exit status 2; no output folder left).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"

namespace fs = std::filesystem;
using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

namespace {

const std::string kSmallGraph = "6 7\n0 1 0.5\n0 2 0.4\n1 3 0.6\n2 3 0.3\n3 4 0.8\n4 5 0.5\n5 0 0.2\n";

std::vector<std::string> run_args(const std::string& graph, const TempDir& dir, const std::string& extra = "") {
  std::vector<std::string> a{
      "influence",           "run",  "--graph", graph,          "--k", "2", "--steps", "15", "--runs", "2",
      "--hindsight-rr-sets", "2000", "--out",   dir.path("out")};
  if (!extra.empty()) a.push_back(extra);
  return a;
}

}  // namespace

TEST(InfluenceCli, ListsAlgorithms) {
  auto r = run_cli({"influence", "algorithms"});
  EXPECT_EQ(r.status, 0);
  for (const char* name : {"rsb\n", "random\n", "static-greedy\n", "cucb\n", "epsilon-greedy\n", "oracle\n"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  EXPECT_EQ(run_cli({"influence", "run", "--help"}).status, 0);
}

TEST(InfluenceCli, RunWritesResultsAndIsDeterministic) {
  TempDir dir("influence-run");
  const std::string graph = dir.write("g.txt", kSmallGraph);
  auto r = run_cli(run_args(graph, dir));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"results.json", "records.csv", "summary.csv", "steps.csv", "runs.csv", "report.html"})
    EXPECT_TRUE(fs::exists(dir.path("out/") + f)) << f;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["inputs"]["dynamics"], "trivalency");
  ASSERT_EQ(j["records"].size(), 12u);  // (five default algorithms + best-fixed) x 2 runs
  EXPECT_EQ(j["records"][0]["name"], "rsb");
  EXPECT_EQ(j["records"][1]["seed"], 1);  // the run index
  ASSERT_EQ(j["summary"].size(), 6u);
  EXPECT_EQ(j["summary"][5]["name"], "best-fixed");
  EXPECT_EQ(j["derived"]["algorithms"][0]["curves"]["activated"]["mean"].size(), 15u);
  EXPECT_TRUE(j["records"][0]["metrics"].contains("regret_oracle_final"));
  EXPECT_TRUE(j["summary"][0]["metrics"].contains("regret_fixed_final"));
  const std::string html = slurp(dir.path("out/report.html"));
  EXPECT_NE(html.find("Weak regret against the best fixed seed set"), std::string::npos);
  const std::string first = slurp(dir.path("out/results.json"));
  ASSERT_EQ(run_cli(run_args(graph, dir)).status, 0);
  EXPECT_EQ(slurp(dir.path("out/results.json")), first);
}

TEST(InfluenceCli, GeneratedGraphAndOtherDynamics) {
  TempDir dir("influence-gen");
  for (const char* dyn : {"weighted-cascade", "fluctuating"}) {
    auto args = run_args("er:nodes=300,degree=4", dir);
    args.insert(args.end(), {"--dynamics", dyn, "--algorithms", "rsb,random,cucb", "--format", "csv"});
    auto r = run_cli(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("algorithm,activated_per_step", 0), 0u) << r.out;
  }
}

TEST(InfluenceCli, MalformedEdgeListsExitWithStatus2) {
  TempDir dir("influence-bad");
  expect_bad_input(run_args(dir.write("count.txt", "6 9\n0 1 0.5\n1 2 0.5\n"), dir), dir,
                   {"count.txt:1", "field 'edges'", "declares 9 edges"});
  expect_bad_input(run_args(dir.write("prob.txt", "6 2\n0 1 0.5\n1 2 1.7\n"), dir), dir,
                   {"prob.txt:3", "field 'probability'", "outside [0, 1]"});
  expect_bad_input(run_args(dir.write("id.txt", "6 2\n0 1 0.5\nx1 2 0.5\n"), dir), dir,
                   {"id.txt:3", "field 'source'", "'x1'"});
  expect_bad_input(run_args(dir.path("missing.txt"), dir), dir, {"missing.txt", "no such graph file"});
}

TEST(InfluenceCli, BadOptionsExitWithStatus2) {
  TempDir dir("influence-opts");
  const std::string graph = dir.write("g.txt", kSmallGraph);
  auto with = [&](std::vector<std::string> extra) {
    auto a = run_args(graph, dir);
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  expect_bad_input(with({"--algorithms", "rsb,magic"}), dir, {"unknown algorithm 'magic'"});
  expect_bad_input(with({"--dynamics", "chaotic"}), dir, {"--dynamics"});
  expect_bad_input(with({"--k", "0"}), dir, {"--k"});
  expect_bad_input(with({"--gamma", "1.5"}), dir, {"--gamma"});
  expect_bad_input(with({"--edge-churn", "0.1"}), dir, {"--edge-churn"});
  auto generated = run_args("er:nodes=50,degree=2", dir);
  generated.insert(generated.end(), {"--dynamics", "static"});
  expect_bad_input(generated, dir, {"no edge probabilities"});
}
