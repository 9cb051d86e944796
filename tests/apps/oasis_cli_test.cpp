// The OASiS model on the command line: `cluster policies --engine oasis`, `cluster experiments`,
// `cluster compare --experiment` on an `engine: oasis` preset (records, determinism, report), and
// bad presets (increasing utility, negative demand): one line naming file/line/field, exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"

using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

namespace {

std::string oasis_tiny_preset(const TempDir& dir, const std::string& workload_extra = "") {
  return dir.write("oasis-tiny.yaml",
                   "experiment: oasis-tiny\nengine: oasis\ndescription: test\nseeds: [1, 2]\n"
                   "policies: [oasis, fifo, drf, rrh, dorm, tetris]\nhorizon_slots: 30\n"
                   "cluster:\n  worker_servers: 3\n  ps_servers: 1\n"
                   "  worker_server: {gpus: 4, cpus: 16, mem_gb: 64, net_gbps: 10}\n"
                   "  ps_server: {gpus: 0, cpus: 16, mem_gb: 64, net_gbps: 10}\n"
                   "loads: [0.5, 2]\nservers: [6]\n"
                   "workload:\n  load: 1\n  arrivals: poisson\n  arrival_slots: 20\n  chunks: [2, 6]\n"
                   "  per_worker_slots: [1, 4]\n  workers_per_ps: [2, 4]\n  target_slots: [1, 4]\n" +
                       workload_extra);
}

}  // namespace

TEST(OasisCli, ListsMethodsAndPresets) {
  auto p = run_cli({"cluster", "policies", "--engine", "oasis", "-v"});
  ASSERT_EQ(p.status, 0) << p.err;
  for (const char* s : {"oasis\t", "fifo\t", "drf\t", "rrh\t", "dorm\t", "tetris\t", "oasis.u_scale", "rrh.alpha",
                        "dorm.max_adjust", "admission: may reject"})
    EXPECT_NE(p.out.find(s), std::string::npos) << s;
  auto e = run_cli({"cluster", "experiments"});
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NE(e.out.find("oasis-sim\t"), std::string::npos);
  EXPECT_NE(e.out.find("oasis-testbed\t"), std::string::npos);
  EXPECT_NE(e.out.find("dl2-96\t"), std::string::npos) << "the other presets still listed";
}

TEST(OasisCli, CompareRunsEveryMethodOnEveryPointDeterministically) {
  TempDir dir("oasis-cli");
  const std::string preset = oasis_tiny_preset(dir);
  auto a = run_cli({"cluster", "compare", "--experiment", preset, "--out", dir.path("a"), "--threads", "2"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("price worker gpu: L="), std::string::npos) << "L/U logged: " << a.out;
  auto b = run_cli({"cluster", "compare", "--experiment", preset, "--out", dir.path("b"), "--threads", "1"});
  ASSERT_EQ(b.status, 0) << b.err;
  const auto ja = nlohmann::json::parse(slurp(dir.path("a") + "/results.json"));
  const auto jb = nlohmann::json::parse(slurp(dir.path("b") + "/results.json"));
  // points: (1, 4) base, (0.5, 4), (2, 4), (1, 6) -> 4 points x 2 seeds x 6 methods
  ASSERT_EQ(ja["records"].size(), 48u);
  EXPECT_EQ(ja["records"], jb["records"]) << "same result for any number of threads";
  for (const auto& r : ja["records"]) {
    EXPECT_LE(r["metrics"]["max_server_utilization"].get<double>(), 1 + 1e-9);
    EXPECT_LE(r["metrics"]["total_utility"].get<double>(), r["metrics"]["lp_upper_bound"].get<double>() + 1e-6);
  }
  const std::string html = slurp(dir.path("a") + "/report.html");
  EXPECT_NE(html.find("Total utility vs load"), std::string::npos);
  EXPECT_NE(html.find("Total utility vs cluster size"), std::string::npos);
  // Method subset and knobs from the command line.
  auto c = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "oasis,rrh", "--policy-param",
                    "rrh.alpha=0.5", "--seeds", "3", "--out", dir.path("c"), "--format", "json"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["records"].size(), 8u);
}

TEST(OasisCli, BadPresetsAreOneLineErrors) {
  TempDir dir("oasis-bad");
  const std::string up = oasis_tiny_preset(dir, "  decay: [-5, -4]\n");
  expect_bad_input({"cluster", "compare", "--experiment", up, "--out", dir.path("out")}, dir,
                   {"oasis-tiny.yaml:", "decay", "increase"});
  TempDir dir2("oasis-bad2");
  const std::string neg = oasis_tiny_preset(dir2, "  worker_demand: {gpu: [-1, 2]}\n");
  expect_bad_input({"cluster", "compare", "--experiment", neg, "--out", dir2.path("out")}, dir2,
                   {"oasis-tiny.yaml:", "worker_demand.gpu", "negative"});
  TempDir dir3("oasis-bad3");
  const std::string ok = oasis_tiny_preset(dir3);
  expect_bad_input({"cluster", "compare", "--experiment", ok, "--policy-param", "oasis.typo=1", "--out", dir3.path("out")},
                   dir3, {"oasis.typo"});
  expect_bad_input({"cluster", "compare", "--experiment", ok, "--policies", "nope", "--out", dir3.path("out")}, dir3,
                   {"nope"});
}
