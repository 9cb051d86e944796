// Tests of `dmlkit comm ...` run in-process: outputs and bad input (exit 2, one line).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"
#include "comm/scheduler.h"

using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

TEST(CommCli, ListsSchedulers) {
  auto r = run_cli({"comm", "schedulers"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Each registered name on its own line (no count: adding a scheduler changes no test).
  for (const auto& name : dmlkit::comm::scheduler_names())
    EXPECT_NE(r.out.find(name + "\n"), std::string::npos) << name;
}

TEST(CommCli, CompareWritesResultsCsvAndReport) {
  TempDir dir("comm-compare");
  auto r = run_cli({"comm", "compare", "--model", "vgg16", "--arch", "allreduce", "--workers", "4", "--bandwidth",
                    "10Gbps", "--schedulers", "fifo,bytescheduler,pace", "--out", dir.path("o"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("o/results.json")));
  EXPECT_EQ(j["schema_version"], 2);
  ASSERT_EQ(j["records"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["records"][0]["metrics"]["speedup_over_fifo"].get<double>(), 1.0);
  const double lb = j["derived"]["lower_bound_s"].get<double>();
  for (const auto& rec : j["records"]) EXPECT_GE(rec["metrics"]["iteration_mean_s"].get<double>(), lb * (1 - 1e-9));
  // VGG-16's 553 MB of gradients at 10 Gbps: fifo leaves fc6's all-reduce exposed; PACE hides it.
  EXPECT_GT(j["records"][2]["metrics"]["speedup_over_fifo"].get<double>(), 1.0);
  EXPECT_NE(slurp(dir.path("o/records.csv")).find("bytescheduler"), std::string::npos);
  EXPECT_NE(slurp(dir.path("o/timeline-pace.csv")).find("GPU compute"), std::string::npos);
  EXPECT_NE(slurp(dir.path("o/report.html")).find("Timeline of one steady-state iteration"), std::string::npos);
}

// Heterogeneous workers on a ring (issue 16): one link at half bandwidth slows the whole
// all-reduce (a comm-bound run takes about twice as long, and the lower bound doubles); one GPU
// twice as slow makes a compute-bound run take twice as long.
static double iteration_s(std::vector<std::string> extra, double* bound = nullptr) {
  TempDir dir("comm-hetero");
  std::vector<std::string> args = {
      "comm",  "compare",     "--model",  "resnet50", "--arch", "allreduce",    "--workers",
      "8",     "--bandwidth", "1Gbps",    "--batch",  "32",     "--schedulers", "bytescheduler",
      "--out", dir.path("o"), "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_cli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("o/results.json")));
  if (bound) *bound = j["derived"]["lower_bound_s"].get<double>();
  return j["records"][0]["metrics"]["iteration_mean_s"].get<double>();
}

TEST(CommCli, ASlowLinkOrGpuSlowsTheRing) {
  double b0 = 0, b1 = 0;
  const double base = iteration_s({}, &b0);
  const double slow_link = iteration_s({"--slow-link", "5:0.5"}, &b1);
  EXPECT_NEAR(slow_link / base, 2.0, 0.1);
  EXPECT_NEAR(b1 / b0, 2.0, 1e-9);
  TempDir dir("comm-hetero-cpu");
  auto compute_bound = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "comm",        "compare", "--model",      "resnet50",      "--arch", "allreduce",   "--workers", "8",
        "--bandwidth", "100Gbps", "--schedulers", "bytescheduler", "--out",  dir.path("c"), "--format",  "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(run_cli(args).status, 0);
    return nlohmann::json::parse(slurp(dir.path("c/results.json")))["records"][0]["metrics"]["iteration_mean_s"]
        .get<double>();
  };
  const double fast = compute_bound({});
  EXPECT_NEAR(compute_bound({"--slow-worker", "2:2"}) / fast, 2.0, 0.05);
}

static void expect_bad(std::vector<std::string> args, const std::string& needle) {
  auto r = run_cli(args);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CommCli, BadInputExitsTwoWithOneLine) {
  TempDir dir("comm-bad");
  expect_bad({"comm", "simulate", "--model", "nosuchnet", "--out", dir.path("a")}, "unknown model");
  expect_bad(
      {"comm", "simulate", "--arch", "allreduce", "--workers", "4", "--slow-link", "7:0.5", "--out", dir.path("a")},
      "worker 7 does not exist");
  expect_bad({"comm", "simulate", "--slow-worker", "1:0.5", "--out", dir.path("a")}, "factor must be >= 1");
  expect_bad({"comm", "simulate", "--slow-link", "x", "--out", dir.path("a")}, "WORKER:FACTOR");
  // Issue 20: a graph folder that does not exist is named, not "unknown model (known: )".
  expect_bad({"comm", "simulate", "--graph-dir", "/nonexistent-graphs", "--model", "vgg16", "--out", dir.path("a")},
             "/nonexistent-graphs: no such folder of model graphs");
  expect_bad({"comm", "simulate", "--bandwidth", "0Gbps", "--out", dir.path("a")}, "bandwidth");
  expect_bad({"comm", "simulate", "--scheduler", "magic", "--out", dir.path("a")}, "unknown scheduler");
  expect_bad({"comm", "simulate", "--arch", "ps", "--scheduler", "horovod", "--out", dir.path("a")},
             "does not support");
  expect_bad({"comm", "simulate", "--arch", "mesh", "--out", dir.path("a")}, "arch");
  expect_bad(
      {"comm", "simulate", "--credit-mode", "skip", "--partition-mb", "8", "--credit-mb", "4", "--out", dir.path("a")},
      "credit");
  expect_bad({"comm", "simulate", "--scheduler", "p3", "--partition-mb", "0.001", "--out", dir.path("a")}, "partition");
  expect_bad({"comm", "simulate", "--workers", "0", "--out", dir.path("a")}, "workers");
  expect_bad({"comm", "simulate", "--compute-scale", "nan", "--out", dir.path("a")}, "compute_scale");
  expect_bad({"comm", "simulate", "--iterations", "2", "--warmup", "2", "--out", dir.path("a")}, "warmup");
  expect_bad({"comm", "tune", "--scheduler", "pace", "--out", dir.path("a")}, "tune supports");
  const std::string node =
      " -- Linear -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=4\n";
  dir.write("g/cyc.txt", "");
  std::filesystem::create_directories(dir.path("g"));
  dir.write("g/cyc.txt", "a" + node + "b" + node + "\ta -- b\n\tb -- a\n");
  dir.write("g/bad.txt", "a" + node +
                             "b -- Linear -- forward_compute_time=oops, backward_compute_time=1, "
                             "activation_size=1, parameter_size=4\n");
  expect_bad({"comm", "simulate", "--graph-dir", dir.path("g"), "--model", "cyc", "--out", dir.path("a")}, "cycle");
  expect_bad({"comm", "simulate", "--graph-dir", dir.path("g"), "--model", "bad", "--out", dir.path("a")},
             "bad.txt:2: field 'forward_compute_time'");
  EXPECT_FALSE(std::filesystem::exists(dir.path("a")));
}
