// End-to-end tests of `dmlkit cluster ...` run in-process: output folder, determinism, and every
// bad-input case (one line naming file, line and field; exit status 2; no output folder left).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace fs = std::filesystem;
using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::results_without_invocation;
using dmlkit::testing::TempDir;

namespace {

const std::string kPolluxHeader = "name,time,application,num_replicas,batch_size\n";
const std::string kTraceHeader = "timestamp,duration,num_gpus,gpu_time,cluster\n";

// Expects a bad-input failure: status 2, exactly one line on stderr containing every needle, and
// no output folder (nor a staging folder) left behind.
std::vector<std::string> simulate_args(const std::string& workload, const TempDir& dir,
                                       const std::string& policy = "fifo", const std::string& cluster = "2x4") {
  return {"cluster", "simulate", "--workload", workload, "--cluster",
          cluster,   "--policy", policy,       "--out",  dir.path("out")};
}

}  // namespace

TEST(Cli, VersionAndPolicies) {
  auto v = run_cli({"--version"});
  EXPECT_EQ(v.status, 0);
  EXPECT_NE(v.out.find("dmlkit "), std::string::npos);
  auto p = run_cli({"cluster", "policies"});
  EXPECT_EQ(p.status, 0);
  for (const char* name : {"fifo\n", "srtf\n", "drf\n", "tetris\n", "tiresias\n", "optimus-oracle\n"})
    EXPECT_NE(p.out.find(name), std::string::npos) << name;
}

// Issue 20: every list command takes -v.
TEST(Cli, EveryListCommandTakesVerbose) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"cluster", "policies", "-v"},
                                                                {"cluster", "experiments", "-v"},
                                                                {"comm", "schedulers", "-v"},
                                                                {"influence", "algorithms", "-v"},
                                                                {"continual", "strategies", "-v"},
                                                                {"ps", "list", "-v"},
                                                                {"football", "taggers", "-v"},
                                                                {"gnn", "list", "-v"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << args[0] << " " << args[1];
  }
  const auto e = run_cli({"cluster", "experiments", "-v"});
  EXPECT_NE(e.out.find("\tengine oasis\n"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("\tpolicy param dl2.model=dl2-500-shared-w120\n"), std::string::npos) << e.out;
}

// Issue 20: typos get the closest names.
TEST(Cli, TyposSayWhatWasMeant) {
  const auto cmd = run_cli({"clster"});
  EXPECT_EQ(cmd.status, 2);
  EXPECT_NE(cmd.err.find("unknown command 'clster' for dmlkit (did you mean 'cluster'?)"), std::string::npos)
      << cmd.err;
  const auto sub = run_cli({"cluster", "simulat"});
  EXPECT_NE(sub.err.find("did you mean 'simulate'?"), std::string::npos) << sub.err;
  const auto opt = run_cli({"cluster", "simulate", "--polcy", "fifo"});
  EXPECT_EQ(opt.status, 2);
  EXPECT_NE(opt.err.find("unknown option '--polcy' for dmlkit cluster simulate (did you mean '--policy'?)"),
            std::string::npos)
      << opt.err;
  const auto pol = run_cli({"cluster", "simulate", "--policy", "tiresia", "--workload", "pollux-1"});
  EXPECT_EQ(pol.status, 2);
  EXPECT_NE(pol.err.find("did you mean 'tiresias'?"), std::string::npos) << pol.err;
  // A mistyped model, scheduler or bundled graph too (graphs: influence and gnn).
  const auto model = run_cli({"comm", "compare", "--model", "vgg61"});
  EXPECT_NE(model.err.find("did you mean 'vgg16'?"), std::string::npos) << model.err;
  const auto sched = run_cli({"comm", "compare", "--schedulers", "bytesched"});
  EXPECT_NE(sched.err.find("did you mean 'bytescheduler'?"), std::string::npos) << sched.err;
  const auto inf = run_cli({"influence", "run", "--graph", "NetHEP"});
  EXPECT_NE(inf.err.find("did you mean 'NetHEPT'?"), std::string::npos) << inf.err;
  const auto gnn = run_cli({"gnn", "compare", "--graph", "pubmd"});
  EXPECT_NE(gnn.err.find("did you mean 'pubmed'?"), std::string::npos) << gnn.err;
  for (const auto* r : {&cmd, &sub, &opt, &pol, &model, &sched, &inf, &gnn}) {
    EXPECT_EQ(r->status, 2) << r->err;
    EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << r->err;
  }
}

TEST(Cli, HelpOnEveryCommand) {
  for (auto args : std::vector<std::vector<std::string>>{{"--help"},
                                                         {"cluster", "--help"},
                                                         {"cluster", "simulate", "--help"},
                                                         {"cluster", "compare", "--help"},
                                                         {"cluster", "policies", "--help"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args.back();
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
}

TEST(Cli, CompareWritesOutputFolder) {
  TempDir dir("compare");
  auto r = run_cli({"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--policies", "fifo,tiresias",
                    "--seed", "3", "--out", dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("avg_jct_s"), std::string::npos);
  EXPECT_NE(r.out.find(dir.path("out")), std::string::npos) << "prints where the output is";
  for (const char* f : {"results.json", "records.csv", "summary.csv", "jobs-fifo-seed3.csv", "jobs-tiresias-seed3.csv",
                        "rounds-fifo-seed3.csv", "report.html"})
    EXPECT_TRUE(fs::exists(dir.path("out") + "/" + f)) << f;
  auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_EQ(j["schema_version"], 2);
  ASSERT_EQ(j["records"].size(), 2u);
  EXPECT_EQ(j["records"][0]["name"], "fifo");
  EXPECT_EQ(j["records"][0]["seed"], 3);
  EXPECT_EQ(j["records"][0]["metrics"]["finished"], 160);
  EXPECT_GT(j["records"][1]["metrics"]["avg_jct_s"].get<double>(), 0.0);
}

TEST(Cli, SameSeedGivesByteIdenticalResults) {
  TempDir dir("determinism");
  std::vector<std::string> base = {"cluster", "compare",   "--workload", "synthetic",  "--synthetic-jobs",
                                   "60",      "--cluster", "4x4",        "--policies", "fifo,srtf,drf,tetris,tiresias",
                                   "--seed",  "7"};
  auto a = base, b = base, c = base;
  a.insert(a.end(), {"--out", dir.path("a")});
  b.insert(b.end(), {"--out", dir.path("b")});
  c.insert(c.end(), {"--out", dir.path("c")});
  c[c.size() - 3] = "8";  // another seed
  ASSERT_EQ(run_cli(a).status, 0);
  ASSERT_EQ(run_cli(b).status, 0);
  ASSERT_EQ(run_cli(c).status, 0);
  EXPECT_EQ(results_without_invocation(dir.path("a/results.json")),
            results_without_invocation(dir.path("b/results.json")));
  EXPECT_EQ(slurp(dir.path("a/jobs-tiresias-seed7.csv")), slurp(dir.path("b/jobs-tiresias-seed7.csv")));
  EXPECT_NE(slurp(dir.path("a/jobs-fifo-seed7.csv")), slurp(dir.path("c/jobs-fifo-seed8.csv")));
}

TEST(Cli, FormatsJsonAndCsv) {
  TempDir dir("formats");
  auto args = simulate_args("pollux-6", dir, "fifo", "16x4");
  args.insert(args.end(), {"--format", "json"});
  auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["records"][0]["name"], "fifo");
  args.back() = "csv";
  r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("policy,avg_jct_s,", 0), 0u) << r.out;
}

TEST(CliBadInput, MissingFile) {
  TempDir dir("missing");
  expect_bad_input(simulate_args(dir.path("nope.csv"), dir), dir, {"nope.csv"});
}

TEST(CliBadInput, MalformedLine) {
  TempDir dir("malformed");
  auto f = dir.write("w.csv", kPolluxHeader + "a,10,cifar10,1,128\nb,20,cifar10\n");
  expect_bad_input(simulate_args(f, dir), dir, {"w.csv:3"});
}

TEST(CliBadInput, MissingColumn) {
  TempDir dir("column");
  auto f = dir.write("w.csv", "timestamp,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,1,66,vc\n");
  expect_bad_input(simulate_args(f, dir), dir, {"w.csv"});
}

TEST(CliBadInput, NegativeDuration) {
  TempDir dir("negative");
  auto f = dir.write("t.csv", kTraceHeader + "2017-10-09 07:01:55,66.0,1,66.0,vc\n2017-10-09 07:03:00,-5,1,-5,vc\n");
  expect_bad_input(simulate_args(f, dir), dir, {"t.csv:3", "duration"});
}

TEST(CliBadInput, NonNumericDuration) {
  TempDir dir("nonnumeric");
  auto f = dir.write("t.csv", kTraceHeader + "2017-10-09 07:01:55,abc,1,66.0,vc\n");
  expect_bad_input(simulate_args(f, dir), dir, {"t.csv:2", "duration"});
}

TEST(CliBadInput, UnknownApplication) {
  TempDir dir("app");
  auto f = dir.write("w.csv", kPolluxHeader + "a,10,cifar10,1,128\nb,20,alexnet,2,256\n");
  expect_bad_input(simulate_args(f, dir), dir, {"w.csv:3", "application", "alexnet"});
}

TEST(CliBadInput, UnknownPolicy) {
  TempDir dir("policy");
  expect_bad_input(simulate_args("pollux-6", dir, "lottery", "16x4"), dir, {"lottery"});
}

TEST(CliBadInput, OversizedJobRejectedOrDropped) {
  TempDir dir("oversized");
  auto f =
      dir.write("t.csv", kTraceHeader + "2017-10-09 07:01:55,66.0,1,66.0,vc\n2017-10-09 07:02:00,100,16,1600,vc\n");
  expect_bad_input(simulate_args(f, dir), dir, {"t.csv:3", "num_gpus"});
  auto args = simulate_args(f, dir);
  args.push_back("--drop-oversized");
  auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_EQ(j["inputs"]["dropped_oversized"], 1);
  EXPECT_EQ(j["records"][0]["metrics"]["jobs"], 1);
}

TEST(CliBadInput, EmptyWorkload) {
  TempDir dir("empty");
  auto f = dir.write("w.csv", kPolluxHeader);
  expect_bad_input(simulate_args(f, dir), dir, {"w.csv"});
}

TEST(CliBadInput, BadClusterAndOptions) {
  TempDir dir("options");
  auto args = simulate_args("pollux-6", dir);
  args[5] = "16by4";
  expect_bad_input(args, dir, {"16by4"});
  args = simulate_args("pollux-6", dir);
  args.insert(args.end(), {"--round", "-5"});
  expect_bad_input(args, dir, {"--round"});
  args = simulate_args("pollux-6", dir);
  args.insert(args.end(), {"--placement", "diagonal"});
  expect_bad_input(args, dir, {"diagonal"});
  args = simulate_args("pollux-6", dir, "tiresias", "16x4");
  args.insert(args.end(), {"--policy-param", "tiresias.queue=2"});  // typo: the knob is "queues"
  expect_bad_input(args, dir, {"tiresias.queue"});
  args = simulate_args("pollux-6", dir, "tiresias", "16x4");
  args.insert(args.end(), {"--policy-param", "tiresias.queues=two"});
  expect_bad_input(args, dir, {"tiresias.queues", "two"});
}

TEST(CliBadInput, FailedRunKeepsPreviousOutput) {
  TempDir dir("keep");
  ASSERT_EQ(run_cli(simulate_args("pollux-6", dir, "fifo", "16x4")).status, 0);
  const std::string before = slurp(dir.path("out/results.json"));
  auto r = run_cli(simulate_args(dir.path("nope.csv"), dir));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(slurp(dir.path("out/results.json")), before);
}
