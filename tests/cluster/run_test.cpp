// The cluster run entry (cluster/run.h): check() names the bad field before any work, run() returns
// the results in memory (writing nothing), and the preset run and run_experiment agree (one runner).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cluster/run.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "test_files.h"

namespace dmlkit::cluster {
namespace {

RunSpec run_test_spec() {
  RunSpec s;
  s.workload = "pollux-6";
  s.cluster = "16x4";
  s.policies = {"fifo"};
  s.threads = 1;
  return s;
}

// check(spec) throws an Error whose message contains `needle`.
void run_test_expect_error(const RunSpec& s, const std::string& needle) {
  try {
    check(s);
    ADD_FAILURE() << "no error, expected one naming " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// The working folder for the test's scope: a fresh empty one.
class RunTestCwd {
 public:
  explicit RunTestCwd(const std::string& path) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(path);
  }
  ~RunTestCwd() { std::filesystem::current_path(old_); }

 private:
  std::filesystem::path old_;
};

TEST(ClusterRunCheck, NamesTheBadField) {
  RunSpec s = run_test_spec();
  EXPECT_NO_THROW(check(s));
  s = run_test_spec();
  s.policies.clear();
  run_test_expect_error(s, "--policies: no policy given");
  s = run_test_spec();
  s.policies = {"fifo", "fifo"};
  run_test_expect_error(s, "--policies: 'fifo' given twice");
  s = run_test_spec();
  s.policies = {"nope"};
  run_test_expect_error(s, "unknown policy 'nope'");
  s = run_test_spec();
  s.round_s = 0;
  run_test_expect_error(s, "--round: must be positive");
  s = run_test_spec();
  s.restart_delay_s = -1;
  run_test_expect_error(s, "--restart-delay: must not be negative");
  s = run_test_spec();
  s.extra_server_slowdown = -0.5;
  run_test_expect_error(s, "--extra-server-slowdown");
  s = run_test_spec();
  s.synthetic_jobs = 0;
  run_test_expect_error(s, "--synthetic-jobs");
  s = run_test_spec();
  s.window_start_s = 10;
  s.window_end_s = 5;
  run_test_expect_error(s, "--window-end: must be after --window-start");
  s = run_test_spec();
  s.window_start_s = -1;
  run_test_expect_error(s, "--window-start");
  s = run_test_spec();
  s.max_jobs = -1;
  run_test_expect_error(s, "--jobs");
  s = run_test_spec();
  s.threads = -1;
  run_test_expect_error(s, "--threads");
  s = run_test_spec();
  s.profile = "nope";
  run_test_expect_error(s, "--profile");
  s = run_test_spec();
  s.interference = "nope";
  run_test_expect_error(s, "--interference");
  s = run_test_spec();
  s.calibration_statistic = "sample";
  run_test_expect_error(s, "--calibration-statistic");
  s = run_test_spec();
  s.policy_params = {"fifo.backfill=maybe"};
  run_test_expect_error(s, "fifo.backfill");
  s = run_test_spec();
  s.policy_params = {"tiresias.queues=2"};  // a knob of no policy that runs
  run_test_expect_error(s, "tiresias.queues");
  s = run_test_spec();
  s.cluster = "0x4";
  EXPECT_THROW(check(s), Error);
  s = run_test_spec();
  s.workload = "no-such-workload";
  EXPECT_THROW(check(s), Error);
}

TEST(ClusterRun, ReturnsResultsWithoutTouchingTheFileSystem) {
  dmlkit::testing::TempDir dir("cluster-run");
  RunOutput out;
  {
    RunTestCwd cwd(dir.path());
    RunSpec s = run_test_spec();
    s.policies = {"fifo", "srtf"};
    s.command = "cluster compare";
    size_t started = 0, done = 0;
    RunProgress progress;
    progress.on_start = [&](size_t, const std::string&) { ++started; };
    progress.on_done = [&](size_t) { ++done; };
    out = run(s, progress);
    EXPECT_EQ(started, 2u);
    EXPECT_EQ(done, 2u);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "run() wrote into the working folder";
  ASSERT_EQ(out.results.records().size(), 2u);
  EXPECT_EQ(out.results.records()[0].name, "fifo");
  EXPECT_EQ(out.results.records()[1].name, "srtf");
  EXPECT_EQ(out.results.command(), "cluster compare");
  EXPECT_EQ(out.results.inputs()["workload"], "pollux-6");
  EXPECT_EQ(out.results.inputs()["cluster_gpus"], 64);
  EXPECT_EQ(out.results.inputs()["placement"], "consolidate");
  const auto files = out.detail_files();
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].name, "jobs-fifo-seed1.csv");
  EXPECT_EQ(out.detail_file("rounds-srtf-seed1.csv"), files[3].content);
  EXPECT_FALSE(out.detail_file("nope.csv").has_value());
  EXPECT_NE(out.summary("table").find("workload "), std::string::npos);
  EXPECT_EQ(out.summary("json"), out.results.json_text());
}

TEST(ClusterRun, ThreadsDoNotChangeResults) {
  RunSpec s = run_test_spec();
  s.policies = {"fifo", "tiresias", "srtf"};
  s.threads = 1;
  const RunOutput serial = run(s);
  s.threads = 3;
  const RunOutput parallel = run(s);
  EXPECT_EQ(serial.results.json_text(), parallel.results.json_text());
}

TEST(ClusterRun, ExperimentPresetRunsThroughTheSameRunner) {
  ExperimentSpec s;
  s.experiment = "optimus-testbed";
  s.seeds = {1};
  s.policies = {"fifo"};
  s.threads = 1;
  EXPECT_NO_THROW(check(s));
  const ExperimentOutput out = run(s);
  Experiment e = load_experiment("optimus-testbed", default_experiments_dir());
  e.seeds = {1};
  e.policies = {"fifo"};
  const auto runs = run_experiment(e, default_data_dir());
  ASSERT_EQ(out.results.records().size(), runs.size());
  EXPECT_EQ(out.results.records()[0].metrics["avg_jct_s"], runs[0].metrics.avg_jct_s);
  EXPECT_EQ(out.files.size(), 2u);
  s.policy_params = {"nope.knob=1"};
  EXPECT_THROW(check(s), Error);
  s.policy_params.clear();
  s.experiment = "no-such-preset";
  EXPECT_THROW(check(s), Error);
}

}  // namespace
}  // namespace dmlkit::cluster
