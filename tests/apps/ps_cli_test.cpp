// Tests of `dmlkit ps ...` run in-process: listing, a small comparison, bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"
#include "ps/policy.h"

using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

TEST(PsCli, ListsPoliciesWithKnobs) {
  auto r = run_cli({"ps", "list", "-v"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& name : dmlkit::ps::policy_registry().names()) EXPECT_NE(r.out.find(name + "\t"), std::string::npos);
  EXPECT_NE(r.out.find("psld.ewma_alpha"), std::string::npos);
  EXPECT_NE(r.out.find("MXNET_KVSTORE_BIGARRAY_BOUND"), std::string::npos);
}

TEST(PsCli, CompareWritesResultsCsvAndReport) {
  TempDir dir("ps-compare");
  auto r = run_cli({"ps", "compare", "--model", "vgg16", "--workers", "4", "--servers", "2", "--iterations", "8",
                    "--stragglers", "rotating", "--policies", "mxnet,byteps,psld", "--out", dir.path("o"), "--format",
                    "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("o/results.json")));
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["command"], "ps compare");
  ASSERT_EQ(j["records"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["records"][0]["metrics"]["speedup_over_mxnet"].get<double>(), 1.0);
  EXPECT_EQ(j["records"][2]["detail"]["iteration_s"].size(), 8u);
  EXPECT_NE(slurp(dir.path("o/loads.csv")).find("psld,7,1,"), std::string::npos);
  EXPECT_NE(slurp(dir.path("o/iterations.csv")).find("byteps,0,"), std::string::npos);
  EXPECT_NE(slurp(dir.path("o/report.html")).find("PS load over time"), std::string::npos);
}

TEST(PsCli, UnknownModelIsOneLineExit2) {
  TempDir dir("ps-bad-model");
  expect_bad_input({"ps", "compare", "--model", "nosuchnet", "--iterations", "4", "--out", dir.path("out")}, dir,
                   {"model", "nosuchnet"});
}

TEST(PsCli, StragglerFileNamingAMissingServerIsOneLineExit2) {
  TempDir dir("ps-bad-stragglers");
  const auto file = dir.write("s.csv", "server,start_iteration,end_iteration,kind,amount\n0,0,2,cpu,2\n9,1,3,cpu,2\n");
  expect_bad_input({"ps", "compare", "--servers", "4", "--iterations", "4", "--stragglers", file, "--out", dir.path("out")},
                   dir, {file, "3", "server", "no PS 9"});
}

TEST(PsCli, BadPolicyAndKnobAreOneLineExit2) {
  TempDir dir("ps-bad-policy");
  expect_bad_input({"ps", "compare", "--policies", "mxnet,nope", "--iterations", "4", "--out", dir.path("out")}, dir,
                   {"nope"});
  expect_bad_input({"ps", "compare", "--policy-param", "psld.nope=1", "--iterations", "4", "--out", dir.path("out")}, dir,
                   {"psld.nope"});
  expect_bad_input({"ps", "compare", "--stragglers", "sometimes", "--iterations", "4", "--out", dir.path("out")}, dir,
                   {"sometimes"});
}
