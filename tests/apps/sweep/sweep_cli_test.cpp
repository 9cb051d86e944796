// `dmlkit sweep` end to end on tiny `cluster simulate` cells: plan, run (parallel, resume),
// collect, status; and every bad sweep file is one line, exit 2, before anything runs (unknown
// command, axis, knob, policy; checked with the CLI's own parser, check_cli).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dmlkit/cli.h"

namespace dmlkit::app {
namespace {

namespace fs = std::filesystem;

struct Out {
  int status;
  std::string out, err;
};

Out cli(std::vector<std::string> args) {
  std::vector<const char*> argv{"dmlkit"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("dmlkit-sweep-cli-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string file(const std::string& name, const std::string& text) {
    const std::string p = (root_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  fs::path root_;
};

// Four tiny cells: 20 synthetic jobs on 4 servers of 4 GPUs.
const char* kTiny = R"(command: cluster simulate
args: {cluster: 4x4, workload: synthetic, synthetic-jobs: 20}
axes:
  policy: [fifo, srtf]
  seed: [1, 2]
)";

TEST_F(SweepCli, PlanPrintsTheGrid) {
  const Out r = cli({"sweep", "plan", file("s.yaml", kTiny)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("dmlkit cluster simulate: 4 cells (policy 2 x seed 2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("policy=srtf__seed=2"), std::string::npos);
  const Out j = cli({"sweep", "plan", file("s.yaml", kTiny), "--format", "json"});
  ASSERT_EQ(j.status, 0);
  const auto plan = nlohmann::json::parse(j.out);
  EXPECT_EQ(plan["cells"].size(), 4u);
  EXPECT_EQ(plan["cells"][0]["argv"][2], "--cluster=4x4");
}

TEST_F(SweepCli, RunResumeCollectStatus) {
  const std::string f = file("s.yaml", kTiny);
  const std::string dir = (root_ / "out").string();
  const Out r = cli({"sweep", "run", f, "--out", dir, "--jobs", "2", "--dmlkit", DMLKIT_BINARY});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("4 cells: 0 finished before, 4 run now, 0 failed"), std::string::npos) << r.out;
  for (const char* name : {"policy=fifo__seed=1", "policy=srtf__seed=2"})
    EXPECT_TRUE(fs::exists(fs::path(dir) / "cells" / name / "results.json")) << name;
  // Collected at the end of the run: one record per cell, with the axis values.
  const auto res = nlohmann::json::parse(std::ifstream(dir + "/results.json"));
  EXPECT_EQ(res["command"], "sweep collect");
  EXPECT_EQ(res["record_kind"], "policy");
  ASSERT_EQ(res["records"].size(), 4u);
  EXPECT_EQ(res["records"][1]["name"], "fifo");
  EXPECT_EQ(res["records"][1]["seed"], 2);
  EXPECT_FALSE(res["records"][1].contains("params"));  // the policy axis is the record's name
  EXPECT_TRUE(res["records"][1]["metrics"].contains("avg_jct_s"));
  EXPECT_TRUE(fs::exists(dir + "/report.html"));
  EXPECT_TRUE(fs::exists(dir + "/records.csv"));
  // Resume: nothing runs again.
  const Out again = cli({"sweep", "run", f, "--out", dir, "--dmlkit", DMLKIT_BINARY});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.out.find("4 cells: 4 finished before, 0 run now, 0 failed"), std::string::npos) << again.out;
  // A cell removed (an interrupted sweep) runs again, alone.
  fs::remove_all(fs::path(dir) / "cells" / "policy=srtf__seed=1");
  const Out resumed = cli({"sweep", "run", f, "--out", dir, "--dmlkit", DMLKIT_BINARY});
  EXPECT_NE(resumed.out.find("4 cells: 3 finished before, 1 run now, 0 failed"), std::string::npos) << resumed.out;
  // collect gives the same records again; status counts the cells.
  const Out c = cli({"sweep", "collect", dir, "--format", "json"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["records"], res["records"]);
  const Out s = cli({"sweep", "status", dir});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("4 cells: 4 done, 0 failed"), std::string::npos) << s.out;
  // collect --out writes a separate folder.
  const Out o = cli({"sweep", "collect", dir, "--out", (root_ / "merged").string()});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::exists(root_ / "merged" / "summary.csv"));
}

TEST_F(SweepCli, AFailingCellIsReportedWithExitStatus1) {
  // srtf with a wrong knob type passes the dry parse only if the knob is valid; use a workload that
  // the dry parse accepts but the run rejects: a job larger than the cluster.
  const std::string f = file("s.yaml", R"(command: cluster simulate
args: {workload: synthetic, synthetic-jobs: 20, policy: fifo}
axes:
  cluster: [4x4, 1x1]
)");
  const std::string dir = (root_ / "out").string();
  const Out r = cli({"sweep", "run", f, "--out", dir, "--retries", "2", "--dmlkit", DMLKIT_BINARY});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("2 cells: 0 finished before, 1 run now, 1 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("cluster=1x1: dmlkit: synthetic workload: a job needs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(1 attempt)"), std::string::npos) << r.err;  // exit 2: not retried
  const Out s = cli({"sweep", "status", dir});
  EXPECT_NE(s.out.find("2 cells: 1 done, 1 failed"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("failed: cluster=1x1"), std::string::npos) << s.out;
}

TEST_F(SweepCli, BadSweepFilesAreOneLineExit2BeforeAnythingRuns) {
  const std::string dir = (root_ / "never").string();
  auto run = [&](const std::string& text) {
    const Out r = cli({"sweep", "run", file("bad.yaml", text), "--out", dir, "--dmlkit", DMLKIT_BINARY});
    EXPECT_EQ(r.status, 2) << text;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_FALSE(fs::exists(dir)) << "the sweep folder was created for a bad sweep file";
    return r.err;
  };
  const std::string base = "command: cluster simulate\nargs: {cluster: 4x4, workload: synthetic}\n";
  // An unknown axis (a typo of --policy).
  EXPECT_NE(run(base + "axes:\n  polcy: [fifo, srtf]\n")
                .find("bad.yaml:4: field 'axes.polcy': unknown option '--polcy' for dmlkit cluster simulate (did you "
                      "mean 'policy'?)"),
            std::string::npos);
  // An unknown knob of a policy that runs.
  EXPECT_NE(run(base + "args2: 1\n").find("unknown field"), std::string::npos);
  const std::string knob = run(base + "axes:\n  policy: [tiresias]\n  tiresias.queus: [2, 3]\n");
  EXPECT_NE(knob.find("cell policy=tiresias__tiresias.queus=2: "), std::string::npos) << knob;
  EXPECT_NE(knob.find("queus"), std::string::npos) << knob;
  // An unknown policy value.
  EXPECT_NE(run(base + "axes:\n  policy: [fifo, tiresais]\n").find("tiresais"), std::string::npos);
  // An unknown workload.
  EXPECT_NE(run("command: cluster simulate\naxes:\n  workload: [pollux-1, pollux-99]\n").find("pollux-99"),
            std::string::npos);
  // An unknown command.
  EXPECT_NE(
      run("command: cluster simulat\n").find("bad.yaml:1: field 'command': 'cluster simulat' is not a dmlkit command"),
      std::string::npos);
  // A command that writes no output folder.
  EXPECT_NE(run("command: cluster policies\n").find("writes no output folder"), std::string::npos);
  // A knob for a command without --policy-param.
  EXPECT_NE(run("command: comm simulate\naxes:\n  bytescheduler.x: [1]\n").find("does not take"), std::string::npos);
  // A bad value of an option (a negative seed).
  EXPECT_NE(run(base + "axes:\n  seed: [1, -1]\n").find("seed"), std::string::npos);
  // plan checks the same way.
  const Out p = cli({"sweep", "plan", file("bad.yaml", base + "axes:\n  polcy: [fifo]\n")});
  EXPECT_EQ(p.status, 2);
  EXPECT_EQ(lines(p.err), 1u);
}

TEST_F(SweepCli, CheckCliParsesWithoutRunning) {
  std::string error;
  const std::string out = (root_ / "x").string();
  EXPECT_EQ(check_cli({"cluster", "simulate", "--policy=fifo", "--out", out}, error), 0) << error;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(check_cli({"cluster", "simulate", "--policy=fifoo", "--out", out}, error), 2);
  EXPECT_NE(error.find("fifoo"), std::string::npos);
  EXPECT_EQ(check_cli({"comm", "simulate", "--scheduler=nope", "--out", out}, error), 2);
  EXPECT_EQ(check_cli({"ps", "compare", "--policy-param", "psld.nope=1", "--out", out}, error), 2);
  EXPECT_NE(error.find("nope"), std::string::npos);
  EXPECT_EQ(check_cli({"comm", "tune", "--scheduler=bytescheduler", "--probes=0", "--out", out}, error), 2);
  EXPECT_NE(error.find("probes"), std::string::npos);
  EXPECT_EQ(
      check_cli({"cluster", "compare", "--experiment=optimus-testbed", "--policies=optimus,nope", "--out", out}, error),
      2);
  EXPECT_NE(error.find("nope"), std::string::npos);
  EXPECT_EQ(check_cli({"cluster", "compare", "--experiment=optimus-testbed", "--out", out}, error), 0) << error;
  std::vector<std::string> options;
  EXPECT_TRUE(command_options({"cluster", "simulate"}, options));
  EXPECT_NE(std::find(options.begin(), options.end(), "policy-param"), options.end());
  EXPECT_FALSE(command_options({"cluster"}, options));
}

}  // namespace
}  // namespace dmlkit::app
