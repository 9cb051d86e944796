// `cluster simulate|compare --calibration FILE` (issue 12): a calibration measured on a live run
// makes the simulated JCTs longer by what the file says; a bad file is one line and exit 2, with no
// output folder; --jobs N simulates the first N jobs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace dmlkit::testing {
namespace {

std::string calibration(double start_mean_s, double time_scale = 0.01) {
  nlohmann::ordered_json lat = {{"mean_s", 0.0}};
  nlohmann::ordered_json j = {{"schema", "dmlkit-calibration"},
                              {"schema_version", 1},
                              {"time_scale", time_scale},
                              {"latencies_wall_s",
                               {{"arrival", lat},
                                {"start", {{"mean_s", start_mean_s}}},
                                {"restart", lat},
                                {"preemption", lat},
                                {"completion", lat}}}};
  return j.dump(2);
}

std::vector<std::string> calibrated_simulate(const TempDir& dir, const std::string& out,
                                             std::vector<std::string> extra) {
  std::vector<std::string> args = {"cluster", "simulate",    "--workload", "pollux-6", "--jobs",
                                   "6",       "--cluster",   "8x4",        "--policy", "fifo",
                                   "--out",   dir.path(out), "--format",   "json",     "--drop-oversized"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<double> jcts(const std::string& results_json) {
  std::vector<double> v;
  std::ifstream in(results_json.substr(0, results_json.size() - 12) + "jobs-fifo-seed1.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    // id,name,application,num_gpus,arrival_s,first_start_s,finish_s,jct_s,...
    size_t at = 0;
    for (int k = 0; k < 7; ++k) at = line.find(',', at) + 1;
    v.push_back(std::stod(line.substr(at, line.find(',', at) - at)));
  }
  return v;
}

TEST(CalibrationCli, AStartLatencyLengthensEveryJobOfAnUncrowdedRun) {
  TempDir dir("calib-cli");
  const auto plain = run_cli(calibrated_simulate(dir, "plain", {}));
  ASSERT_EQ(plain.status, 0) << plain.err;
  const std::string cal = dir.write("cal.json", calibration(0.5));  // 0.5 wall s at 0.01: 50 model s
  const auto calibrated = run_cli(calibrated_simulate(dir, "cal", {"--calibration", cal}));
  ASSERT_EQ(calibrated.status, 0) << calibrated.err;
  const auto scaled =
      run_cli(calibrated_simulate(dir, "scaled", {"--calibration", cal, "--calibration-time-scale", "0.05"}));
  ASSERT_EQ(scaled.status, 0) << scaled.err;
  const auto a = jcts(dir.path("plain/results.json")), b = jcts(dir.path("cal/results.json")),
             c = jcts(dir.path("scaled/results.json"));
  ASSERT_EQ(a.size(), 6u);  // --jobs 6
  ASSERT_EQ(b.size(), 6u);
  // The first job starts on an empty cluster: exactly the latency later.
  EXPECT_NEAR(b[0] - a[0], 50, 1e-6);
  EXPECT_NEAR(c[0] - a[0], 10, 1e-6);  // 0.5 wall s at 0.05: 10 model s
  for (size_t i = 0; i < a.size(); ++i) EXPECT_GE(b[i], a[i] + 50 - 1e-6) << i;
  const auto in = nlohmann::json::parse(slurp(dir.path("cal/results.json")))["inputs"];
  EXPECT_EQ(in["calibration"]["file"], cal);
  EXPECT_DOUBLE_EQ(in["calibration"]["start_latency_s"].get<double>(), 50);
  EXPECT_FALSE(nlohmann::json::parse(slurp(dir.path("plain/results.json")))["inputs"].contains("calibration"));
}

TEST(CalibrationCli, ABadCalibrationFileIsOneLineAndExitTwo) {
  TempDir dir("calib-bad");
  expect_bad_input(calibrated_simulate(dir, "out", {"--calibration", dir.path("missing.json")}), dir,
                   {"missing.json", "no such calibration file"});
  const std::string neg = dir.write("neg.json", calibration(-1));
  expect_bad_input(calibrated_simulate(dir, "out", {"--calibration", neg}), dir,
                   {"neg.json", "latencies_wall_s.start.mean_s", "in [0, 86400]"});
  const std::string junk = dir.write("junk.json", "{\"schema\": 1");
  expect_bad_input(calibrated_simulate(dir, "out", {"--calibration", junk}), dir, {"junk.json"});
  const std::string zero = dir.write("zero.json", calibration(0.5, 0));
  std::vector<std::string> compare = {"cluster",   "compare",      "--workload", "pollux-6",      "--jobs",        "4",
                                      "--cluster", "8x4",          "--policies", "fifo,tiresias", "--calibration", zero,
                                      "--out",     dir.path("out")};
  expect_bad_input(compare, dir, {"zero.json", "time_scale"});
  expect_bad_input(calibrated_simulate(dir, "out", {"--jobs", "-1"}), dir, {"--jobs"});
}

}  // namespace
}  // namespace dmlkit::testing
