// Issue 36 items 9, 10 and 11: small inputs that would exhaust memory or time, nonsense values
// outside physical ranges, and YAML keys given twice are one line naming file, line and field, exit
// 2, no output folder; a run that finishes no job reports null averages, never 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "cluster/workload/experiment.h"

namespace dmlkit::testing {
namespace {

std::string calibration_with_start(const std::string& start_mean_s, const std::string& time_scale = "0.01") {
  const std::string lat = R"({"mean_s": 0})";
  return R"({"schema": "dmlkit-calibration", "schema_version": 1, "time_scale": )" + time_scale +
         R"(, "latencies_wall_s": {"arrival": )" + lat + R"(, "start": {"mean_s": )" + start_mean_s +
         R"(}, "restart": )" + lat + R"(, "preemption": )" + lat + R"(, "completion": )" + lat + "}}";
}

std::vector<std::string> simulate(const TempDir& dir, std::vector<std::string> extra) {
  std::vector<std::string> a = {"cluster",      "simulate", "--workload", "pollux-6", "--jobs",           "4",
                                "--cluster",    "8x4",      "--policy",   "fifo",     "--drop-oversized", "--out",
                                dir.path("out")};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(InputLimits, ACalibrationLatencyOf1e300IsRefusedBeforeAnyWork) {
  TempDir dir("limits-calibration");
  const auto cal = dir.write("cal.json", calibration_with_start("1e300"));
  expect_bad_input(simulate(dir, {"--calibration", cal}), dir, {"cal.json", "latencies_wall_s.start.mean_s", "86400"});
  const auto scale = dir.write("scale.json", calibration_with_start("0.5", "1e-300"));
  expect_bad_input(simulate(dir, {"--calibration", scale}), dir, {"scale.json", "time_scale"});
  const auto ok = dir.write("ok.json", calibration_with_start("0.5"));
  expect_bad_input(simulate(dir, {"--calibration", ok, "--calibration-time-scale", "1e-300"}), dir,
                   {"--calibration-time-scale"});
}

TEST(InputLimits, AOneLineGraphFileCannotAskForMillionsOfNodes) {
  TempDir dir("limits-gnn");
  for (const std::string id : {"4294967293", "49999999"}) {
    const auto graph = dir.write("g.txt", "0 " + id + "\n");
    expect_bad_input({"gnn", "compare", "--graph", graph, "--out", dir.path("out")}, dir,
                     {"g.txt:1", "field 'target'", "--max-nodes"});
    expect_bad_input({"influence", "run", "--graph", graph, "--out", dir.path("out")}, dir, {"g.txt:1", "target"});
  }
  // --max-nodes sets the limit (here lower than the default).
  const auto graph = dir.write("g.txt", "0 1\n1 2\n2 30\n");
  expect_bad_input({"gnn", "compare", "--graph", graph, "--max-nodes", "10", "--out", dir.path("out")}, dir,
                   {"g.txt:3", "at most 10 nodes"});
}

TEST(InputLimits, ValuesOutsidePhysicalRangesAreRefused) {
  TempDir dir("limits-physical");
  // An arrival of 1e308 s (and a duration of 1e300 s) in a trace.
  const auto arrival = dir.write("w.csv", "name,time,num_gpus,duration\na,0,1,100\nb,1e308,1,100\n");
  expect_bad_input({"cluster", "simulate", "--workload", arrival, "--cluster", "2x4", "--out", dir.path("out")}, dir,
                   {"w.csv:3", "time", "out of range"});
  const auto duration = dir.write("d.csv", "name,time,num_gpus,duration\na,0,1,1e300\n");
  expect_bad_input({"cluster", "simulate", "--workload", duration, "--cluster", "2x4", "--out", dir.path("out")}, dir,
                   {"d.csv:2", "duration"});
  // A comm layer of 1e300 bytes.
  std::filesystem::create_directories(dir.path("g"));
  dir.write("g/huge.txt",
            "a -- Linear -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=4\n"
            "b -- Linear -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=1e300\n"
            "\ta -- b\n");
  expect_bad_input({"comm", "simulate", "--graph-dir", dir.path("g"), "--model", "huge", "--out", dir.path("out")}, dir,
                   {"huge.txt:2", "parameter_size", "1e300"});
  // A replay time scale of 1e-300 wall seconds per model second.
  expect_bad_input({"cluster", "replay", "--fake", "2x4", "--workload", "pollux-6", "--time-scale", "1e-300", "--out",
                    dir.path("out")},
                   dir, {"--time-scale", "1e-300"});
}

std::string preset(const TempDir& dir, const std::string& name, const std::string& extra) {
  return dir.write(name, "experiment: tiny\ndescription: test\ncluster: " + cluster::default_experiments_dir() +
                             "/clusters/optimus-testbed.yaml\nseeds: [1]\npolicies: [drf, fifo]\nround_s: 600\n" +
                             extra +
                             "workload:\n  num_jobs: 4\n  arrivals: window\n  window_slots: 1\n  slot_s: 600\n"
                             "  max_num_epochs: 1000\n  demands: testbed\n");
}

TEST(InputLimits, ARunThatFinishesNoJobReportsNullAveragesNeverZero) {
  TempDir dir("limits-null");
  // Stopped after 1 s: no job can finish.
  auto r = run_cli({"cluster", "compare", "--experiment", preset(dir, "stop.yaml", "max_time_s: 1\n"), "--out",
                    dir.path("stop"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("stop/results.json")));
  ASSERT_FALSE(j["records"].empty());
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["metrics"]["finished"], 0);
    for (const char* m : {"avg_jct_s", "median_jct_s", "p95_jct_s", "p99_jct_s", "avg_queue_s"})
      EXPECT_TRUE(rec["metrics"][m].is_null()) << m << ": " << rec["metrics"][m];
  }
  const std::string records = slurp(dir.path("stop/records.csv"));
  EXPECT_EQ(records.find(",0.0,"), std::string::npos) << records;
  // The same preset run to the end: numbers as before.
  r = run_cli({"cluster", "compare", "--experiment", preset(dir, "full.yaml", ""), "--out", dir.path("full"),
               "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(slurp(dir.path("full/results.json")));
  for (const auto& rec : j["records"]) {
    EXPECT_GT(rec["metrics"]["finished"].get<int>(), 0);
    EXPECT_GT(rec["metrics"]["avg_jct_s"].get<double>(), 0);
  }
}

TEST(InputLimits, AReplayThatFinishesNoJobReportsNullAverages) {
  TempDir dir("limits-replay-null");
  // Gives up after a millisecond of (virtual) wall time: no job finishes on the fake Slurm.
  const auto r = run_cli({"cluster", "replay", "--fake", "2x4", "--workload", "pollux-6", "--jobs", "2", "--max-wall",
                          "0.001", "--out", dir.path("out"), "--format", "json"});
  ASSERT_TRUE(std::filesystem::exists(dir.path("out/results.json"))) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  const auto& m = j["records"][0]["metrics"];
  EXPECT_FALSE(m["complete"].get<bool>());
  for (const char* k : {"sim_avg_jct_s", "real_avg_jct_s", "gap_avg_jct_s", "gap_avg_jct_rel", "mean_abs_job_gap_s"})
    EXPECT_TRUE(m[k].is_null()) << k << ": " << m[k];
}

TEST(InputLimits, DuplicateYamlKeysAreRefusedInPresetsClusterFilesAndSweepFiles) {
  TempDir dir("limits-yaml");
  // A preset that gives max_time_s twice (the first would silently win).
  const auto twice = preset(dir, "twice.yaml", "max_time_s: 1e9\nmax_time_s: 1\n");
  expect_bad_input({"cluster", "compare", "--experiment", twice, "--out", dir.path("out")}, dir,
                   {"twice.yaml:8", "max_time_s", "duplicate key"});
  // A cluster file whose server entry gives gpus twice.
  const auto cluster = dir.write("c.yaml", "servers:\n  - count: 2\n    gpus: 4\n    gpus: 8\n");
  expect_bad_input({"cluster", "simulate", "--workload", "pollux-6", "--cluster", cluster, "--out", dir.path("out")},
                   dir, {"c.yaml:4", "gpus", "duplicate key"});
  // A sweep file with two `axes`.
  const auto sweep = dir.write("s.yaml", "command: cluster simulate\naxes:\n  policy: [fifo]\naxes:\n  seed: [1]\n");
  const auto r = run_cli({"sweep", "plan", sweep});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("s.yaml:4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("duplicate key"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dmlkit::testing
