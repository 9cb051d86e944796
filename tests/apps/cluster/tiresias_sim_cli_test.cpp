// The Tiresias authors' simulator semantics (--profile tiresias-sim) from the command line: their
// published figures on their 60-job trace (tests/cluster/tiresias_sim_test.cpp has the library side).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"

namespace dmlkit::cluster {
namespace {

const std::string kTiresiasCliData = std::string(DMLKIT_SOURCE_DIR) + "/data";

// The command of the issue, through the CLI: their trace by name, their figures; the profile's
// settings are recorded in results.json (no rounds: null; restart delay 0; first-fit placement).
TEST(TiresiasSim, CommandLineGivesTheirFigures) {
  dmlkit::testing::TempDir dir("tiresias-sim");
  for (const std::string policy : {"tiresias", "fifo"}) {
    const auto r = dmlkit::testing::run_cli({"cluster", "simulate", "--profile", "tiresias-sim", "--workload",
                                             "tiresias-60", "--cluster", "16x4", "--policy", policy, "--format", "csv",
                                             "--data-dir", kTiresiasCliData, "--out", dir.path("out")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(policy + ",178.4167,125.0,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(",3271.0,"), std::string::npos) << r.out;
    std::ifstream f(dir.path("out/results.json"));
    const std::string json((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(json.find("\"round_s\": null"), std::string::npos) << json.substr(0, 800);
    EXPECT_NE(json.find("\"restart_delay_s\": 0.0"), std::string::npos);
    EXPECT_NE(json.find("\"placement\": \"first-fit\""), std::string::npos);
  }
  // An explicit --round / --restart-delay still applies under the profile.
  const auto r = dmlkit::testing::run_cli(
      {"cluster",  "simulate", "--profile",  "tiresias-sim",   "--workload", "tiresias-60",     "--cluster",
       "16x4",     "--policy", "tiresias",   "--round",        "60",         "--restart-delay", "30",
       "--format", "csv",      "--data-dir", kTiresiasCliData, "--out",      dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tiresias,178.4167,"), std::string::npos) << r.out;  // first starts stay free
  std::ifstream f(dir.path("out/results.json"));
  const std::string json((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"round_s\": 60.0"), std::string::npos) << json.substr(0, 800);
}

}  // namespace
}  // namespace dmlkit::cluster
