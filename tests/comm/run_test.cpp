// The run entries of comm (comm/run.h): check() refuses bad fields before any simulation, naming
// the field; run() returns the Results, report and tables without touching the file system.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "comm/run.h"
#include "core/error.h"

namespace dmlkit::comm {
namespace {

const std::string kCommRunGraphDir = std::string(DMLKIT_SOURCE_DIR) + "/data/model-graphs";

RunSpec comm_run_small_spec() {
  RunSpec spec;
  spec.model = "resnet18";
  spec.workers = 2;
  spec.iterations = 2;
  spec.warmup = 0;
  spec.graph_dir = kCommRunGraphDir;
  spec.schedulers = {"fifo", "bytescheduler"};
  return spec;
}

// The field (or, for knobs, the message) an Error of check(spec) names.
template <class Spec>
std::string comm_run_refusal(const Spec& spec) {
  try {
    (void)check(spec);
  } catch (const Error& e) {
    return e.field().empty() ? std::string(e.what()) : e.field();
  }
  return "accepted";
}

std::set<std::string> comm_run_listing(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST(CommRun, CheckNamesTheBadField) {
  EXPECT_EQ(comm_run_refusal(comm_run_small_spec()), "accepted");
  auto spec = comm_run_small_spec();
  spec.workers = 0;
  EXPECT_EQ(comm_run_refusal(spec), "workers");
  spec = comm_run_small_spec();
  spec.arch = "mesh";
  EXPECT_EQ(comm_run_refusal(spec), "arch");
  spec = comm_run_small_spec();
  spec.model = "nosuchnet";
  EXPECT_EQ(comm_run_refusal(spec), "model");
  spec = comm_run_small_spec();
  spec.schedulers = {"fifo", "fifo"};
  EXPECT_EQ(comm_run_refusal(spec), "schedulers");
  spec = comm_run_small_spec();
  spec.schedulers = {"magic"};
  EXPECT_EQ(comm_run_refusal(spec), "scheduler");
  spec = comm_run_small_spec();
  spec.iterations = 2;
  spec.warmup = 2;
  EXPECT_EQ(comm_run_refusal(spec), "warmup");
  spec = comm_run_small_spec();
  spec.bandwidth = "0Gbps";
  EXPECT_EQ(comm_run_refusal(spec), "bandwidth");
  spec = comm_run_small_spec();
  spec.scheduler_params = {{"fusion-mb", "4"}};  // no chosen scheduler reads it
  EXPECT_NE(comm_run_refusal(spec).find("--fusion-mb: no knob of fifo,bytescheduler"), std::string::npos);
  spec = comm_run_small_spec();
  spec.scheduler_params = {{"bytescheduler.partition-mb", "two"}};
  EXPECT_NE(comm_run_refusal(spec).find("bytescheduler.partition-mb"), std::string::npos);
  spec = comm_run_small_spec();
  spec.scheduler_params = {{"partition-mb", "8"}, {"credit-mb", "4"}, {"credit-mode", "skip"}};
  EXPECT_EQ(comm_run_refusal(spec), "credit");

  TuneSpec tune;
  tune.graph_dir = kCommRunGraphDir;
  EXPECT_EQ(comm_run_refusal(tune), "accepted");
  tune.scheduler = "pace";
  EXPECT_EQ(comm_run_refusal(tune), "scheduler");  // "tune supports bytescheduler and horovod, not 'pace'"
  tune.scheduler = "bytescheduler";
  tune.probes = 0;
  EXPECT_EQ(comm_run_refusal(tune), "probes");
}

TEST(CommRun, RunReturnsResultsWithoutTouchingTheFileSystem) {
  const std::string cwd = std::filesystem::current_path().string();
  const auto before = comm_run_listing(cwd);
  auto spec = comm_run_small_spec();
  spec.scheduler_params = {{"partition-mb", "16"}};
  const RunOutput out = run(spec);
  EXPECT_EQ(comm_run_listing(cwd), before);
  ASSERT_EQ(out.results.records().size(), 2u);
  EXPECT_EQ(out.results.records()[0].name, "fifo");
  const auto& in = out.results.inputs();
  EXPECT_EQ(in["partition_bytes"].get<double>(), 16e6);
  EXPECT_EQ(in["effective_knobs"]["bytescheduler.partition-mb"], "16");
  EXPECT_EQ(in["effective_knobs"]["bytescheduler.credit-mb"], "16");  // the PS default
  ASSERT_EQ(out.files.size(), 2u);
  EXPECT_EQ(out.files[1].first, "timeline-bytescheduler.csv");
  EXPECT_EQ(out.summary.rows().size(), 2u);
  EXPECT_GT(out.trace.size(), 0u);
}

}  // namespace
}  // namespace dmlkit::comm
