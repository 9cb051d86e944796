// `dmlkit gnn ...` run in-process: outputs and bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"

using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

TEST(GnnCli, ListsPoliciesWithKnobs) {
  auto r = run_cli({"gnn", "list", "-v"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* n : {"colocate", "random", "greedy", "explore", "fifo-fair", "online", "explore.candidates",
                        "online.rerate_tolerance", "metis", "hash", "metis.coarse_nodes", "metis.coarsen_above_edges"})
    EXPECT_NE(r.out.find(n), std::string::npos) << n;
}

TEST(GnnCli, CompareWritesResultsAndReport) {
  TempDir dir("gnn-compare");
  auto r = run_cli({"gnn",
                    "compare",
                    "--graph",
                    "cora",
                    "--partitions",
                    "2",
                    "--machines",
                    "4",
                    "--devices",
                    "v100:2,k80:2",
                    "--batch",
                    "256",
                    "--feature-dim",
                    "64",
                    "--placements",
                    "colocate,greedy,explore",
                    "--placement-param",
                    "explore.candidates=4",
                    "--sim-iterations",
                    "6",
                    "--out",
                    dir.path("o"),
                    "--format",
                    "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("o/results.json")));
  EXPECT_EQ(j["command"], "gnn compare");
  ASSERT_EQ(j["records"].size(), 6u);
  EXPECT_EQ(j["records"][0]["name"], "colocate+fifo-fair");
  EXPECT_DOUBLE_EQ(j["records"][0]["metrics"]["speedup_over_colocate_fifo_fair"].get<double>(), 0.0);
  for (const auto& rec : j["records"]) {
    EXPECT_GT(rec["metrics"]["epoch_s"].get<double>(), 0);
    EXPECT_LE(rec["metrics"]["gpu_utilization"].get<double>(), 1.0);
  }
  EXPECT_NE(slurp(dir.path("o/report.html")).find("Gantt"), std::string::npos);
  EXPECT_NE(slurp(dir.path("o/placements.csv")).find("T0"), std::string::npos);
}

TEST(GnnCli, BadInputIsOneLineExit2) {
  TempDir dir("gnn-bad");
  {
    std::ofstream f(dir.path("g.txt"));
    f << "3 2\n0 1\n1 7\n";
  }
  auto r = run_cli({"gnn", "compare", "--graph", dir.path("g.txt"), "--partitions", "1", "--machines", "1", "--devices",
                    "v100:1", "--out", dir.path("o")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("outside 0..2"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = run_cli({"gnn", "compare", "--graph", "cora", "--fanouts", "25,0", "--out", dir.path("o2")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("fanout"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = run_cli({"gnn", "compare", "--graph", "cora", "--placements", "colocat", "--out", dir.path("o3")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("colocate"), std::string::npos) << r.err;
}

TEST(GnnCli, MetisPreStepAndItsKnobsFromTheCommandLine) {
  TempDir dir("gnn-pre");
  auto r = run_cli({"gnn",
                    "compare",
                    "--graph",
                    "rmat:nodes=4000,edge_factor=8",
                    "--partitions",
                    "2",
                    "--machines",
                    "2",
                    "--devices",
                    "v100:2",
                    "--batch",
                    "128",
                    "--feature-dim",
                    "16",
                    "--placements",
                    "colocate",
                    "--schedulers",
                    "online",
                    "--partitioner-param",
                    "metis.coarsen_above_edges=0",
                    "--partitioner-param",
                    "metis.coarse_nodes=500",
                    "--sim-iterations",
                    "3",
                    "--out",
                    dir.path("o"),
                    "--format",
                    "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("o/results.json")));
  EXPECT_GT(j["inputs"]["coarse_nodes"].get<int>(), 0);
  EXPECT_LE(j["inputs"]["partition_imbalance"].get<double>(), 0.031);
  EXPECT_EQ(j["inputs"]["partitioner_params"]["metis.coarse_nodes"], "500");
  EXPECT_FALSE(j["records"][0]["metrics"]["busiest_link"].get<std::string>().empty());
  // An unknown or out-of-range partitioner knob, or an unknown partitioner: one line, exit 2.
  for (const auto& bad : std::vector<std::vector<std::string>>{{"--partitioner-param", "metis.coarse_node=5"},
                                                               {"--partitioner-param", "metis.coarse_nodes=0"},
                                                               {"--partitioner", "kahip"}}) {
    std::vector<std::string> args{"gnn", "compare", "--graph", "cora", "--out", dir.path("bad")};
    args.insert(args.end(), bad.begin(), bad.end());
    r = run_cli(args);
    EXPECT_EQ(r.status, 2) << bad[1];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}
