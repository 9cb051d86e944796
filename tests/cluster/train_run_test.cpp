// The trainers' run entries (cluster/train/run.h): check() refuses a bad spec naming the option
// before any work (no folder created), and run() returns the Results and the report's content
// without writing them (only the models go to the spec's folder).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cluster/train/run.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

namespace fs = std::filesystem;

class TrainRunDir {
 public:
  TrainRunDir() {
    path_ = fs::temp_directory_path() / ("dmlkit-train-run-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TrainRunDir() { fs::remove_all(path_); }
  std::string path(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }

 private:
  fs::path path_;
};

// 8 PS jobs on 6 of DL2's servers, two evaluation seeds (as tests/apps/cluster_train_test.cpp).
std::string train_run_tiny_preset(const TrainRunDir& dir) {
  const std::string cluster = dir.write(
      "tiny6.yaml", "name: tiny6\nservers:\n  - {count: 6, gpus: 2, cpus: 8, mem_gb: 48, net_gbps: 10, name: node}\n");
  return dir.write("dl2-tiny.yaml", "experiment: dl2-tiny\ndescription: test preset\ncluster: " + cluster +
                                        "\nseeds: [1, 2]\npolicies: [drf-dl2]\nspeed_model: table\nround_s: 1200\n"
                                        "restart_delay_s: 0\nmeasure_noise: 0\nworkload:\n  num_jobs: 8\n"
                                        "  arrivals: google\n  max_arrivals_per_slot: 3\n  slot_s: 1200\n"
                                        "  max_num_epochs: 3000\n  demands: dl2\n");
}

void expect_train_check_error(const auto& spec, const std::string& needle) {
  try {
    check(spec);
    ADD_FAILURE() << "no error; expected one naming " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

Dl2TrainSpec tiny_dl2_spec(const TrainRunDir& dir) {
  Dl2TrainSpec s;
  s.source.experiment = train_run_tiny_preset(dir);
  s.source.dir = dir.path("out");
  s.source.threads = 1;
  s.knobs.sl_steps = 10;
  s.knobs.rl_steps = 4;
  s.knobs.memory = 64;
  s.knobs.batch = 16;
  s.knobs.train_traces = 2;
  s.knobs.val_every = 2;
  s.knobs.checkpoint_every = 2;
  return s;
}

TEST(TrainRunCheck, Dl2RefusesBadFieldsNamingThem) {
  TrainRunDir dir;
  Dl2TrainSpec s = tiny_dl2_spec(dir);
  EXPECT_NO_THROW(check(s));
  s.knobs.actors = 3;
  expect_train_check_error(s, "--batch");
  s = tiny_dl2_spec(dir);
  s.exploration = "sometimes";
  expect_train_check_error(s, "--exploration");
  s = tiny_dl2_spec(dir);
  s.knobs.teacher = "no-such-policy";
  expect_train_check_error(s, "--teacher");
  s = tiny_dl2_spec(dir);
  s.knobs.resume = true;
  expect_train_check_error(s, "--resume");
  s = tiny_dl2_spec(dir);
  s.knobs.init_model = "dl2-96";
  s.sl_option_given = "--sl-steps";
  expect_train_check_error(s, "--sl-steps");
  s = tiny_dl2_spec(dir);
  s.source.experiment = dir.path("missing.yaml");
  expect_train_check_error(s, "missing.yaml");
  EXPECT_FALSE(fs::exists(dir.path("out"))) << "check() created the output folder";
}

TEST(TrainRunCheck, HarmonyDesignsRefuseBadFieldsNamingThem) {
  TrainRunDir dir;
  HarmonyTrainSpec h;
  h.source.experiment = "harmony-testbed";
  EXPECT_NO_THROW(check(h));
  h.knobs.new_jobs = h.knobs.jobs + 1;
  expect_train_check_error(h, "--new-jobs");
  S2sTrainSpec s;
  s.source.experiment = "harmony-testbed";
  EXPECT_NO_THROW(check(s));
  s.source.experiment = "no-such-preset";
  expect_train_check_error(s, "no-such-preset");
}

TEST(TrainRun, Dl2ReturnsResultsAndReportWithoutWritingThem) {
  TrainRunDir dir;
  const Dl2TrainSpec s = tiny_dl2_spec(dir);
  const Dl2TrainRun r = run(s, {});
  EXPECT_EQ(r.dir, dir.path("out"));
  EXPECT_EQ(r.results.inputs()["experiment"], "dl2-tiny");
  EXPECT_EQ(r.results.inputs()["exploration"], "code");
  EXPECT_EQ(r.results.records().size(), 4u);  // the teacher, SL, best, last
  EXPECT_FALSE(r.training_csv.empty());
  EXPECT_TRUE(fs::exists(dir.path("out/sl.json")));  // the models, written as they are made
  EXPECT_FALSE(fs::exists(dir.path("out/results.json")));
  EXPECT_FALSE(fs::exists(dir.path("out/report.html")));
}

}  // namespace
}  // namespace dmlkit::cluster
