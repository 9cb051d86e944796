// Harmony's world from the command line (docs/harmony.md): bad job types and interference files
// are one line with exit 2; --interference overrides the preset and is recorded.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"

namespace dmlkit::cluster {
namespace {

TEST(HarmonyCli, UnknownJobTypeAndBadInterferenceFileExitTwo) {
  dmlkit::testing::TempDir dir("harmony-cli");
  const std::string csv = dir.write("w.csv", "name,time,type,epochs,ps,workers\na,0,ctc,10,1,2\nb,0,alexnett,10,1,1\n");
  dmlkit::testing::expect_bad_input({"cluster", "simulate", "--workload", csv, "--cluster", "2x4", "--policy", "lb",
                                     "--interference", "contention", "--out", dir.path("out")},
                                    dir, {"w.csv", "3", "type", "alexnett"});
  const std::string bad = dir.write("bad.yaml", "resources: [cpu]\ncapacity: {cpu: 0}\ntypes: {}\n");
  dmlkit::testing::expect_bad_input({"cluster", "compare", "--experiment", "harmony-testbed", "--interference",
                                     "contention", "--interference-file", bad, "--out", dir.path("out")},
                                    dir, {"bad.yaml", "capacity"});
  // A type the model has no profile for.
  const std::string partial =
      dir.write("p.yaml", "resources: [cpu]\ncapacity: {cpu: 1}\ntypes:\n  vgg-16:\n    worker: {cpu: 0.1}\n");
  dmlkit::testing::expect_bad_input(
      {"cluster", "simulate", "--workload", dir.write("ok.csv", "name,time,type,epochs,ps,workers\na,0,ctc,10,1,2\n"),
       "--cluster", "2x4", "--policy", "lb", "--interference", "contention", "--interference-file", partial, "--out",
       dir.path("out")},
      dir, {"ctc", "vgg-16"});
}

TEST(HarmonyCli, InterferenceOverridesThePresetAndIsRecorded) {
  dmlkit::testing::TempDir dir("harmony-rec");
  const auto r =
      dmlkit::testing::run_cli({"cluster", "compare", "--experiment", "harmony-testbed", "--seeds", "1", "--policies",
                                "lb", "--interference", "gavel", "--out", dir.path("out"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["interference"], "gavel");
  EXPECT_EQ(j["inputs"]["workload"]["catalogue"], "harmony");
}

}  // namespace
}  // namespace dmlkit::cluster
