// Issue 11, defects 0-2 through the command line: --out never deletes what dmlkit did not write,
// negative or out-of-range numbers are refused before any work, and a spreadsheet's CSV export
// (BOM, CRLF) gives the same results as the plain file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "core/data_dir.h"
#include "spreadsheet_copy.h"

namespace dmlkit::testing {
namespace {

namespace fs = std::filesystem;

// The bundled file behind --workload pollux-6.
std::string cluster_workload_path() { return data_path("workloads/workloads/workload-6.csv"); }

std::vector<std::string> inputs_simulate(const std::string& workload, const std::string& out) {
  return {"cluster", "simulate", "--workload", workload, "--cluster", "16x4", "--policy", "fifo", "--out", out};
}

// Status 2 and one line on stderr holding every needle.
void expect_refused(const std::vector<std::string>& args, const std::vector<std::string>& needles) {
  const auto r = run_cli(args);
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  EXPECT_EQ(r.status, 2) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << cmd << "\nnot one line: " << r.err;
  for (const auto& n : needles)
    EXPECT_NE(r.err.find(n), std::string::npos) << cmd << "\nmissing '" << n << "' in: " << r.err;
}

// --- Defect 0: --out ------------------------------------------------------------------------

TEST(CliOut, RefusesAFolderOfUserFilesInEveryFamily) {
  TempDir dir("out-user");
  fs::create_directories(dir.path("mine"));
  dir.write("mine/thesis.tex", "precious");
  const std::string mine = dir.path("mine");
  const std::vector<std::vector<std::string>> commands = {
      inputs_simulate("pollux-6", mine),
      {"cluster", "compare", "--workload", "pollux-6", "--policies", "fifo,srtf", "--out", mine},
      {"cluster", "compare", "--experiment", "dl2-96", "--out", mine},
      {"comm", "simulate", "--model", "vgg16", "--out", mine},
      {"comm", "compare", "--model", "vgg16", "--out", mine},
      {"influence", "run", "--steps", "1", "--out", mine},
      {"continual", "angle-sweep", "--angles", "30", "--epochs", "1", "--out", mine},
      {"continual", "replay", "--out", mine},
      {"continual", "sign-angle", "--out", mine},
  };
  for (const auto& args : commands) expect_refused(args, {"--out", "not a dmlkit output"});
  EXPECT_EQ(slurp(dir.path("mine/thesis.tex")), "precious");
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string(), "mine") << "left behind: " << e.path();
}

TEST(CliOut, CheckedBeforeAnyWork) {
  TempDir dir("out-first");
  fs::create_directories(dir.path("mine"));
  dir.write("mine/notes.txt", "x");
  // The workload is missing too: the --out problem is reported, so it was checked first.
  expect_refused(inputs_simulate(dir.path("missing.csv"), dir.path("mine")), {"--out"});
}

TEST(CliOut, ExperimentDefaultFolderCheckedBeforeTheRuns) {
  TempDir dir("out-experiment");
  fs::create_directories(dir.path("out/cluster-compare-dl2-96"));
  dir.write("out/cluster-compare-dl2-96/notes.txt", "mine");
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  // The unknown policy is found by the runs: the --out problem is reported, so it came first.
  expect_refused({"cluster", "compare", "--experiment", "dl2-96", "--policies", "no-such-policy"},
                 {"--out out/cluster-compare-dl2-96", "not a dmlkit output"});
  fs::current_path(before);
  EXPECT_EQ(slurp(dir.path("out/cluster-compare-dl2-96/notes.txt")), "mine");
}

TEST(CliOut, RefusesTheWorkingFolderItsParentsAndRoot) {
  TempDir dir("out-cwd");
  fs::create_directories(dir.path("work"));
  dir.write("work/data.csv", "keep");
  const fs::path before = fs::current_path();
  fs::current_path(dir.path("work"));
  expect_refused(inputs_simulate("pollux-6", "."), {"working folder"});
  expect_refused(inputs_simulate("pollux-6", ".."), {"working folder"});
  expect_refused(inputs_simulate("pollux-6", dir.path("work")), {"working folder"});
  fs::current_path(before);
  // Never `--out /` or `--out <checkout>` through the CLI here: if the check regressed, the run
  // would delete them (it did once, in a check that this test fails without the fix). The core
  // test covers them without a commit (tests/core/output_dir_test.cpp).
  EXPECT_EQ(slurp(dir.path("work/data.csv")), "keep");
}

TEST(CliOut, RefusesAFolderHoldingAnInput) {
  TempDir dir("out-input");
  ASSERT_EQ(run_cli(inputs_simulate("pollux-6", dir.path("out"))).status, 0);
  fs::copy_file(cluster_workload_path(), dir.path("out/w.csv"));
  const std::string workload = slurp(dir.path("out/w.csv"));
  // A previous output that now holds the workload, and a parent of the workload.
  expect_refused(inputs_simulate(dir.path("out/w.csv"), dir.path("out")), {"holds the input"});
  fs::copy_file(cluster_workload_path(), dir.path("w.csv"));
  expect_refused(inputs_simulate(dir.path("w.csv"), dir.path()), {"holds the input"});
  EXPECT_EQ(slurp(dir.path("out/w.csv")), workload);
}

TEST(CliOut, ReplacesOnlyAPreviousOutput) {
  TempDir dir("out-replace");
  ASSERT_EQ(run_cli(inputs_simulate("pollux-6", dir.path("out"))).status, 0);
  EXPECT_TRUE(fs::exists(dir.path("out/.dmlkit-output")));
  ASSERT_EQ(run_cli(inputs_simulate("pollux-6", dir.path("out"))).status, 0);  // ours: replaced
  dir.write("out/notes.txt", "mine");
  expect_refused(inputs_simulate("pollux-6", dir.path("out")), {"notes.txt"});
  EXPECT_EQ(slurp(dir.path("out/notes.txt")), "mine");
  fs::create_directories(dir.path("empty"));
  EXPECT_EQ(run_cli(inputs_simulate("pollux-6", dir.path("empty"))).status, 0);  // an empty folder is fine
}

// --- Defect 1: numbers ----------------------------------------------------------------------

struct BadNumber {
  std::vector<std::string> args;
  std::string needle;
};

TEST(CliNumbers, NegativeAndOutOfRangeValuesAreRefusedBeforeAnyWork) {
  TempDir dir("numbers");
  const std::string out = dir.path("out");
  const std::vector<std::string> sim = inputs_simulate("pollux-6", out);
  const std::vector<std::string> comm = {"comm", "simulate", "--model", "vgg16", "--out", out};
  const std::vector<std::string> inf = {"influence", "run", "--steps", "2", "--out", out};
  const std::vector<std::string> replay = {"continual", "replay", "--out", out};
  const std::vector<std::string> sweep = {"continual", "angle-sweep", "--angles", "30", "--out", out};
  const std::vector<std::string> sign = {"continual", "sign-angle", "--out", out};
  auto with = [](std::vector<std::string> base, std::vector<std::string> extra) {
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
  };
  const std::vector<BadNumber> cases = {
      // --seed -1 wrapped to 18446744073709551615 in all four families.
      {with(sim, {"--seed", "-1"}), "--seed"},
      {with(comm, {"--seed", "-1"}), "--seed"},
      {with(inf, {"--seed", "-1"}), "--seed"},
      {with(replay, {"--seed", "-1"}), "--seed"},
      {with(sweep, {"--seed", "-1"}), "--seed"},
      {with(sign, {"--seed", "-1"}), "--seed"},
      {{"cluster", "compare", "--workload", "pollux-6", "--policies", "fifo", "--seed", "-1", "--out", out}, "--seed"},
      {{"cluster", "compare", "--experiment", "dl2-96", "--seeds", "-3", "--out", out}, "--seeds"},
      {with(replay, {"--runs", "-3"}), "--runs"},
      {with(sweep, {"--runs", "0"}), "--runs"},
      // --seeds is a list of seeds in dmlkit; continual counts runs with --runs (issue 20).
      {with(replay, {"--seeds", "3"}), "--runs N"},
      // continual replay --buffer-sizes -5 trained for 10 s, then died with an internal error.
      {with(replay, {"--buffer-sizes", "-5"}), "--buffer-sizes"},
      {with(replay, {"--buffer-sizes", "20,-5"}), "--buffer-sizes"},
      {with(replay, {"--buffer-sizes", "100000000"}), "buffer_sizes"},
      {with(replay, {"--batch-size", "-1"}), "--batch-size"},
      {with(replay, {"--epochs", "0"}), "epochs"},
      {with(replay, {"--lr", "0"}), "learning_rate"},
      {with(replay, {"--threads", "0"}), "threads"},
      {with(replay, {"--tasks", "1"}), "tasks"},
      {with(replay, {"--train-per-class", "0"}), "train_per_class"},
      {with(replay, {"--cnn-batch-size", "-2"}), "--cnn-batch-size"},
      {with(sweep, {"--replay-fraction", "1"}), "replay_fraction"},
      {with(sweep, {"--chunk-models", "0"}), "chunk_models"},
      {with(sweep, {"--patch-len", "1"}), "patch_len"},
      {with(sweep, {"--noise-std", "-1"}), "noise_std"},
      {with(sign, {"--replay-sizes", "-1"}), "replay_sizes"},
      {with(sim, {"--round", "0"}), "--round"},
      {with(sim, {"--round", "-60"}), "--round"},
      {with(sim, {"--restart-delay", "-1"}), "--restart-delay"},
      {with(sim, {"--extra-server-slowdown", "-0.5"}), "--extra-server-slowdown"},
      {with(sim, {"--window-start", "-5"}), "--window-start"},
      {with(sim, {"--window-start", "100", "--window-end", "50"}), "--window-end"},
      {{"cluster", "simulate", "--workload", "synthetic", "--synthetic-jobs", "0", "--out", out}, "--synthetic-jobs"},
      {with(comm, {"--workers", "0"}), "workers"},
      {with(comm, {"--servers", "-1"}), "servers"},
      {with(comm, {"--batch", "0"}), "batch"},
      {with(comm, {"--iterations", "0"}), "iterations"},
      {with(comm, {"--warmup", "-1"}), "warmup"},
      {with(comm, {"--compute-scale", "0"}), "compute_scale"},
      {with(comm, {"--latency-us", "-1"}), "latency"},
      {with(comm, {"--racks", "0"}), "racks"},
      {{"comm", "tune", "--probes", "0", "--out", out}, "probes"},
      {{"comm", "tune", "--seed", "-1", "--out", out}, "--seed"},
      {with(inf, {"--k", "0"}), "--k"},
      {with(inf, {"--steps", "0"}), "--steps"},
      {with(inf, {"--runs", "0"}), "--runs"},
      {with(inf, {"--max-rr-sets", "-1"}), "--max-rr-sets"},
      {with(inf, {"--hindsight-rr-sets", "-1"}), "--hindsight-rr-sets"},
      {with(inf, {"--fr-max", "2"}), "--fr-max"},
      {with(inf, {"--node-presence", "1.5"}), "node"},
      {{"cluster", "replay", "--slurm", "--max-wall", "-1", "--out", out}, "--max-wall"},
      {{"cluster", "replay", "--slurm", "--time-scale", "-1", "--out", out}, "--time-scale"},
      {{"cluster", "serve", "--slurm", "--command-timeout", "0"}, "--command-timeout"},
      {{"cluster", "serve", "--slurm", "--max-wall", "-1"}, "--max-wall"},
  };
  for (const auto& c : cases) {
    expect_refused(c.args, {c.needle});
    EXPECT_FALSE(fs::exists(out)) << c.args[1] << " " << c.needle;
  }
}

// Every unsigned option of every command refuses a negative value (the check is added centrally,
// so a new unsigned option is covered without a new test line).
TEST(CliNumbers, EveryUnsignedOptionRefusesANegativeValue) {
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"cluster", "simulate"}, {"comm", "simulate"}, {"influence", "run"}, {"continual", "replay"}}) {
    auto r = run_cli({cmd[0], cmd[1], "--seed", "-0"});
    EXPECT_EQ(r.status, 2) << cmd[0] << " " << cmd[1] << ": " << r.err;
    EXPECT_NE(r.err.find("must not be negative"), std::string::npos) << r.err;
  }
}

// --- Defect 2: BOM + CRLF -------------------------------------------------------------------

TEST(CliBom, SimulateOnASpreadsheetExportGivesTheSameResults) {
  TempDir dir("bom");
  fs::create_directories(dir.path("plain"));
  fs::copy_file(cluster_workload_path(), dir.path("plain/workload-6.csv"));
  copy_as_spreadsheet(cluster_workload_path(), dir.path("excel/workload-6.csv"));
  ASSERT_NE(slurp(dir.path("plain/workload-6.csv")), slurp(dir.path("excel/workload-6.csv")));
  auto a = run_cli(inputs_simulate(dir.path("plain/workload-6.csv"), dir.path("out-plain")));
  auto b = run_cli(inputs_simulate(dir.path("excel/workload-6.csv"), dir.path("out-excel")));
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;  // was: field 'name': missing column
  auto without_paths = [&](std::string s, const std::string& sub) {
    for (const std::string& from : {dir.path("out-" + sub), dir.path(sub)})
      for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), "DIR");
    return s;
  };
  EXPECT_EQ(without_paths(results_without_invocation(dir.path("out-plain/results.json")), "plain"),
            without_paths(results_without_invocation(dir.path("out-excel/results.json")), "excel"));
}

}  // namespace
}  // namespace dmlkit::testing
