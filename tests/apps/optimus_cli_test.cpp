// End-to-end tests of the parameter-server experiments on the command line: `dmlkit cluster
// experiments`, `dmlkit cluster compare --experiment`, PS workloads in `cluster simulate`, and
// the bad-input cases of issue 3 (unknown job type, speed table with a missing column, negative
// demand): one line naming file/line/field, exit status 2, no output folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "cluster/workload/experiment.h"

namespace fs = std::filesystem;
using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

namespace {

std::string testbed_cluster() { return dmlkit::cluster::default_experiments_dir() + "/clusters/optimus-testbed.yaml"; }

// A small experiment file in `dir` (2 seeds, 6 jobs) with optional extra top-level lines.
std::string write_optimus_experiment(const TempDir& dir, const std::string& extra = "") {
  return dir.write("exp.yaml", "experiment: tiny\ndescription: test\ncluster: " + testbed_cluster() +
                                   "\nseeds: [1, 2]\npolicies: [optimus, drf]\nround_s: 600\n" + extra +
                                   "workload:\n  num_jobs: 6\n  arrivals: window\n  window_slots: 2\n"
                                   "  slot_s: 600\n  max_num_epochs: 1000\n  demands: testbed\n");
}

}  // namespace

TEST(OptimusCli, ListsTheShippedExperiments) {
  auto r = run_cli({"cluster", "experiments"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* name : {"optimus-testbed\t", "dl2-96\t", "dl2-500\t"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name << " in " << r.out;
  auto p = run_cli({"cluster", "policies"});
  EXPECT_NE(p.out.find("optimus\n"), std::string::npos);
}

TEST(OptimusCli, CompareExperimentWritesSummaryOverSeeds) {
  TempDir dir("optimus-exp");
  const std::string exp = write_optimus_experiment(dir);
  auto r = run_cli({"cluster", "compare", "--experiment", exp, "--out", dir.path("out"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["inputs"]["experiment"], "tiny");
  EXPECT_EQ(j["records"].size(), 4u);  // 2 policies x 2 seeds
  ASSERT_EQ(j["summary"].size(), 2u);
  EXPECT_EQ(j["summary"][0]["name"], "optimus");
  EXPECT_EQ(j["summary"][0]["runs"], 2);
  EXPECT_EQ(j["summary"][0]["metrics"]["finished"]["mean"], 6.0);
  for (const char* f : {"summary.csv", "records.csv", "report.html", "jobs-optimus-seed1.csv", "jobs-drf-seed2.csv",
                        "rounds-drf-seed2.csv"})
    EXPECT_TRUE(fs::exists(dir.path("out/") + f)) << f;
  // Deterministic: same input, byte-identical results.
  auto again = run_cli({"cluster", "compare", "--experiment", exp, "--out", dir.path("out2"), "--format", "csv"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(dir.path("out/records.csv")), slurp(dir.path("out2/records.csv")));
  // Overrides: policies, seeds, policy params.
  auto o = run_cli({"cluster", "compare", "--experiment", exp, "--policies", "tetris", "--seeds", "3", "--policy-param",
                    "tetris.fairness=0", "--out", dir.path("out3"), "--format", "csv"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("tetris,"), std::string::npos);
  EXPECT_EQ(o.out.find("optimus,"), std::string::npos);
}

TEST(OptimusCli, PsWorkloadFileRunsUnderSimulate) {
  TempDir dir("optimus-sim");
  auto w = dir.write("ps.csv", "name,time,type,epochs,ps,workers\na,0,resnet-50,200,2,2\nb,60,dssm,100,1,2\n");
  auto r = run_cli({"cluster", "simulate", "--workload", w, "--cluster", testbed_cluster(), "--policy", "optimus",
                    "--round", "600", "--out", dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("optimus"), std::string::npos);
}

TEST(OptimusCliBadInput, UnknownJobType) {
  TempDir dir("optimus-type");
  auto w = dir.write("ps.csv", "name,time,type,epochs,ps,workers\na,0,resnet-50,200,2,2\nb,60,lenet,100,1,2\n");
  expect_bad_input({"cluster", "simulate", "--workload", w, "--cluster", testbed_cluster(), "--policy", "drf", "--out",
                    dir.path("out")},
                   dir, {"ps.csv:3", "type", "lenet"});
}

TEST(OptimusCliBadInput, NegativeDemand) {
  TempDir dir("optimus-neg");
  auto w = dir.write("ps.csv", "name,time,type,epochs,ps,workers,worker_cpus\na,0,resnet-50,200,2,2,-2\n");
  expect_bad_input({"cluster", "simulate", "--workload", w, "--cluster", testbed_cluster(), "--policy", "drf", "--out",
                    dir.path("out")},
                   dir, {"ps.csv:2", "worker_cpus"});
}

TEST(OptimusCliBadInput, SpeedTableWithMissingColumn) {
  TempDir dir("optimus-table");
  dir.write("speed.csv", "model,sync_mode,global_batch,num_ps,total_samples_per_s\nresnet-50,dist_sync,32,1,15.8\n");
  const std::string exp = write_optimus_experiment(dir, "speed_table: speed.csv\n");
  expect_bad_input({"cluster", "compare", "--experiment", exp, "--out", dir.path("out")}, dir,
                   {"speed.csv:1", "num_workers"});
}

TEST(OptimusCliBadInput, BadExperimentFiles) {
  TempDir dir("optimus-badexp");
  expect_bad_input({"cluster", "compare", "--experiment", "no-such-experiment", "--out", dir.path("out")}, dir,
                   {"unknown experiment", "optimus-testbed"});
  auto bad = dir.write(
      "bad.yaml", "experiment: x\ncluster: 2x4\npolicies: [drf]\nworkload:\n  num_jobs: 3\n  types: [resnet-51]\n");
  expect_bad_input({"cluster", "compare", "--experiment", bad, "--out", dir.path("out")}, dir,
                   {"bad.yaml:6", "types", "resnet-51"});
  auto gpu_only = write_optimus_experiment(dir, "");
  expect_bad_input({"cluster", "compare", "--experiment", gpu_only, "--policies", "tiresias", "--out", dir.path("out")},
                   dir, {"tiresias", "parameter-server"});
}
