// Issue 20 ("no silent flags, one style"): options that a mode would ignore are errors; every run
// records its command line, version and input checksums in results.json and in its report; comm
// takes --data-dir like every family.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "core/data_dir.h"
#include "core/provenance.h"

namespace dmlkit::testing {
namespace {

TEST(CliStyle, CompareExperimentRejectsOptionsThePresetSets) {
  TempDir dir("style-exp");
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--round", "60"},
                                                {"--cluster", "4x4"},
                                                {"--workload", "pollux-1"},
                                                {"--profile", "tiresias-sim"}}) {
    std::vector<std::string> args = {"cluster", "compare", "--experiment", "dl2-96", "--out", dir.path("out")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << extra[0];
    EXPECT_NE(r.err.find("dmlkit: " + extra[0] + ": has no effect with --experiment"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path("out")));
  }
}

TEST(CliStyle, SeedsWithoutAnExperimentIsAnError) {
  TempDir dir("style-seeds");
  const auto r = run_cli({"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--seeds", "1,2,3",
                          "--out", dir.path("out")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--seeds: needs --experiment"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("out")));
}

TEST(CliStyle, ResultsAndReportRecordCommandLineVersionAndInputChecksums) {
  TempDir dir("style-prov");
  const auto r = run_cli({"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--policies",
                          "fifo,srtf", "--out", dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  ASSERT_TRUE(j.contains("invocation"));
  const auto& inv = j["invocation"];
  EXPECT_EQ(inv["argv"][0], "dmlkit");
  EXPECT_EQ(inv["argv"][1], "cluster");
  EXPECT_NE(inv["command_line"].get<std::string>().find("--policies fifo,srtf"), std::string::npos);
  bool found = false;
  for (const auto& f : inv["input_files"]) {
    const std::string path = f["path"];
    if (path.find("workload-6.csv") == std::string::npos || path.rfind("data/", 0) != 0) continue;
    found = true;
    const std::string bytes = slurp(default_data_dir() + "/" + path.substr(5));
    EXPECT_EQ(f["bytes"], bytes.size());
    EXPECT_EQ(f["sha256"], sha256_hex(bytes));
  }
  EXPECT_TRUE(found) << inv.dump(2);
  const std::string html = slurp(dir.path("out/report.html"));
  EXPECT_NE(html.find("How to regenerate"), std::string::npos);
  EXPECT_NE(html.find("--policies fifo,srtf"), std::string::npos);
}

TEST(CliStyle, Sha256OfKnownStrings) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CliStyle, CommTakesDataDirLikeEveryFamily) {
  TempDir dir("style-comm");
  const auto bad =
      run_cli({"comm", "simulate", "--data-dir", "/nonexistent-data", "--model", "vgg16", "--out", dir.path("a")});
  EXPECT_EQ(bad.status, 2);
  // A missing --data-dir is named as such before any file is read (issue 44).
  EXPECT_NE(bad.err.find("--data-dir: no such folder: /nonexistent-data"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
  const auto ok = run_cli({"comm", "simulate", "--data-dir", default_data_dir(), "--model", "resnet50", "--iterations",
                           "2", "--out", dir.path("b")});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

TEST(CliStyle, EveryListCommandPrintsJson) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"cluster", "policies"},
                                                                {"cluster", "policies", "--engine", "oasis"},
                                                                {"cluster", "experiments"},
                                                                {"comm", "schedulers"},
                                                                {"influence", "algorithms"},
                                                                {"continual", "strategies"},
                                                                {"ps", "list"},
                                                                {"football", "taggers"},
                                                                {"gnn", "list"}}) {
    auto a = args;
    a.insert(a.end(), {"--format", "json"});
    const auto r = run_cli(a);
    ASSERT_EQ(r.status, 0) << args[0] << " " << args[1] << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.is_array());
    ASSERT_FALSE(j.empty());
    EXPECT_TRUE(j[0].contains("name"));
    EXPECT_TRUE(j[0].contains("description") || j[0].contains("summary")) << j[0].dump();
  }
  const auto j = nlohmann::json::parse(run_cli({"cluster", "policies", "--format", "json"}).out);
  bool tiresias_knobs = false;
  for (const auto& e : j)
    if (e["name"] == "tiresias") tiresias_knobs = !e["knobs"].empty() && e["knobs"][0].contains("default");
  EXPECT_TRUE(tiresias_knobs);
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

TEST(CliStyle, DiffComparesTwoRunsAndRejectsWhatIsNotAResultsFile) {
  TempDir dir("style-diff");
  ASSERT_EQ(run_cli({"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--policies", "fifo,srtf",
                     "--out", dir.path("a")})
                .status,
            0);
  ASSERT_EQ(run_cli({"cluster", "compare", "--workload", "pollux-6", "--cluster", "24x4", "--policies", "fifo,srtf",
                     "--out", dir.path("b")})
                .status,
            0);
  const auto same = run_cli({"diff", dir.path("a"), dir.path("a/results.json"), "--format", "json"});
  ASSERT_EQ(same.status, 0) << same.err;
  const auto same_json = nlohmann::json::parse(same.out);
  EXPECT_TRUE(same_json["inputs"]["differences"].empty()) << same.out;
  for (const auto& d : same_json["metrics"]) EXPECT_EQ(d["change"], 0.0) << d.dump();
  const auto r = run_cli({"diff", dir.path("a"), dir.path("b"), "--changed-only"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("avg_jct_s"), std::string::npos) << r.out;  // more GPUs: JCT changes
  // The inputs that differ come first: the cluster, not the workload (no warning).
  EXPECT_LT(r.out.find("inputs.cluster"), r.out.find("avg_jct_s")) << r.out;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  const auto bad = run_cli({"diff", dir.path("a"), dir.path("a/report.html")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("report.html"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  const auto missing = run_cli({"diff", dir.path("a"), dir.path("nowhere")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nowhere"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

TEST(CliStyle, CommWritesAPerfettoTraceAndHelpShowsPerSchedulerDefaults) {
  TempDir dir("style-trace");
  // Without --trace, no trace is written; with it, the trace goes to the file given.
  const auto plain = run_cli({"comm", "compare", "--model", "resnet50", "--schedulers", "fifo", "--iterations", "3",
                              "--warmup", "1", "--out", dir.path("plain")});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("plain/trace.json")));
  const auto r =
      run_cli({"comm", "compare", "--model", "resnet50", "--schedulers", "fifo,bytescheduler", "--iterations", "3",
               "--warmup", "1", "--out", dir.path("out"), "--trace", dir.path("comm-trace.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("trace:   " + dir.path("comm-trace.json")), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path("out/trace.json")));
  const auto j = nlohmann::json::parse(slurp(dir.path("comm-trace.json")));
  ASSERT_TRUE(j["traceEvents"].is_array());
  size_t complete = 0, processes = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      EXPECT_GE(e["ts"].get<double>(), 0.0);
    }
    if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
  }
  EXPECT_EQ(processes, 2u);
  // One event per span of the two timeline CSVs (header line excluded).
  const auto lines = [&](const std::string& f) {
    const std::string s = slurp(dir.path("out/" + f));
    return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')) - 1;
  };
  EXPECT_EQ(complete, lines("timeline-fifo.csv") + lines("timeline-bytescheduler.csv"));
  const auto help = run_cli({"comm", "simulate", "--help"});
  EXPECT_NE(help.out.find("bytescheduler 4 (ps)"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

TEST(CliStyle, Cli11MessagesInDmlkitStyleAndPolicyKindsSayWhatToRun) {
  const auto conv = run_cli({"cluster", "simulate", "--round", "abc"});
  EXPECT_EQ(conv.status, 2);
  EXPECT_NE(conv.err.find("dmlkit: --round: cannot read 'abc'"), std::string::npos) << conv.err;
  const auto req = run_cli({"diff"});
  EXPECT_EQ(req.status, 2);
  EXPECT_NE(req.err.find("dmlkit: A: required (see dmlkit diff --help)"), std::string::npos) << req.err;
  const auto val = run_cli({"cluster", "simulate", "--workload"});
  EXPECT_EQ(val.status, 2);
  EXPECT_NE(val.err.find("dmlkit: --workload: needs a value"), std::string::npos) << val.err;
  const auto seeds = run_cli({"continual", "replay", "--seeds", "3"});
  EXPECT_EQ(seeds.status, 2);
  EXPECT_NE(seeds.err.find("dmlkit: --seeds: is a list of seeds"), std::string::npos) << seeds.err;
  TempDir dir("style-kinds");
  const auto opt = run_cli({"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy", "optimus",
                            "--out", dir.path("out")});
  EXPECT_EQ(opt.status, 2);
  EXPECT_NE(opt.err.find("--experiment optimus-testbed --policies optimus"), std::string::npos) << opt.err;
  EXPECT_NE(opt.err.find("optimus-oracle"), std::string::npos) << opt.err;
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

// `cluster simulate --trace`: jobs on servers over time. Each GPU lane of a server holds at most one
// job at a time, lanes stay within the server's GPUs, and each job's events add up to the
// GPU-seconds its jobs CSV row reports.
TEST(CliStyle, ClusterSimulateWritesAPerfettoTraceOfJobsOnServers) {
  TempDir dir("style-cluster-trace");
  const auto r = run_cli({"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy", "tiresias",
                          "--out", dir.path("out"), "--trace", dir.path("cluster-trace.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("cluster-trace.json")));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  std::map<int, double> gpu_s;  // job id -> sum of event durations (s)
  size_t servers = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") ++servers;
    if (e["ph"] != "X") continue;
    const int pid = e["pid"], tid = e["tid"];
    EXPECT_GE(pid, 1);
    EXPECT_LE(pid, 16);
    EXPECT_GE(tid, 0);
    EXPECT_LT(tid, 4) << "lane beyond the server's 4 GPUs";
    const double ts = e["ts"].get<double>() / 1e6, dur = e["dur"].get<double>() / 1e6;
    lanes[{pid, tid}].push_back({ts, ts + dur});
    gpu_s[e["args"]["job"].get<int>()] += dur;
  }
  EXPECT_EQ(servers, 16u);
  ASSERT_FALSE(gpu_s.empty());
  for (auto& [lane, spans] : lanes) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_GE(spans[i].first, spans[i - 1].second - 1e-6) << "lane " << lane.first << "/" << lane.second;
  }
  // The jobs CSV's gpu_s column (index 10), per job id (column 0).
  const std::string csv = slurp(dir.path("out/jobs-tiresias-seed1.csv"));
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  size_t rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    ASSERT_GE(cells.size(), 11u) << line;
    const int id = std::stoi(cells[0]);
    EXPECT_NEAR(gpu_s[id], std::stod(cells[10]), 1e-2 + 1e-6 * std::stod(cells[10])) << "job " << id;
    ++rows;
  }
  EXPECT_GT(rows, 0u);
  // The trace cannot go inside --out (replaced as a whole) nor into a missing folder: exit 2.
  const auto inside = run_cli({"cluster", "simulate", "--workload", "pollux-6", "--out", dir.path("out"), "--trace",
                               dir.path("out/trace.json")});
  EXPECT_EQ(inside.status, 2);
  EXPECT_NE(inside.err.find("must not be inside the --out folder"), std::string::npos) << inside.err;
  const auto missing = run_cli({"cluster", "simulate", "--workload", "pollux-6", "--out", dir.path("out3"), "--trace",
                                dir.path("nowhere/trace.json")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  // compare has no --trace: an unknown option, not silently ignored.
  const auto compare = run_cli({"cluster", "compare", "--trace", dir.path("t.json")});
  EXPECT_EQ(compare.status, 2);
}

// --help states the default data and preset folders in words, the same for every command, never as a
// path of this machine (a build or checkout folder); usage lines name the program "dmlkit".
TEST(CliStyle, HelpShowsNoPathOfThisMachine) {
  const std::string data = std::filesystem::path(dmlkit::default_data_dir()).parent_path().string();
  for (const std::vector<std::string>& cmd :
       std::vector<std::vector<std::string>>{{"cluster", "simulate"},
                                             {"cluster", "compare"},
                                             {"comm", "compare"},
                                             {"comm", "tune"},
                                             {"ps", "compare"},
                                             {"gnn", "compare"},
                                             {"influence", "run"},
                                             {"cluster", "train", "dl2"},
                                             {"cluster", "train", "harmony"},
                                             {"cluster", "train", "harmony-seq2seq"},
                                             {"cluster", "replay"},
                                             {"sweep", "run"}}) {
    auto args = cmd;
    args.push_back("--help");
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << cmd[0];
    EXPECT_EQ(r.out.find(data), std::string::npos) << cmd[0] << " " << cmd[1] << ":\n" << r.out;
    EXPECT_NE(r.out.find("Usage: dmlkit " + cmd[0]), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace dmlkit::testing
