// Issue 11: one results layout. The two `cluster compare` paths (a workload, and --experiment)
// write the same folder layout (docs/results-schema.md), and their parallel runs (--threads) give
// byte-identical output folders to the serial run.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "cli_test_util.h"
#include "cluster/workload/experiment.h"

namespace fs = std::filesystem;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;
using dmlkit::testing::without_provenance;

namespace {

std::string write_layout_experiment(const TempDir& dir) {
  return dir.write("exp.yaml",
                   "experiment: tiny\ndescription: test\ncluster: " + dmlkit::cluster::default_experiments_dir() +
                       "/clusters/optimus-testbed.yaml\nseeds: [1, 2, 3]\npolicies: [optimus, drf, fifo]\n"
                       "round_s: 600\nworkload:\n  num_jobs: 6\n  arrivals: window\n  window_slots: 2\n"
                       "  slot_s: 600\n  max_num_epochs: 1000\n  demands: testbed\n");
}

std::map<std::string, std::string> folder(const std::string& path) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(path)) files[e.path().filename().string()] = slurp(e.path().string());
  return files;
}

std::vector<std::string> keys(const nlohmann::json& j) {
  std::vector<std::string> k;
  for (const auto& [key, v] : j.items()) k.push_back(key);
  return k;
}

std::vector<std::string> compare_workload(const TempDir& dir, const std::string& out, const std::string& threads) {
  return {"cluster",    "compare",   "--workload", "synthetic",  "--synthetic-jobs",
          "40",         "--cluster", "4x4",        "--policies", "fifo,srtf,drf,tetris,tiresias",
          "--seed",     "5",         "--threads",  threads,      "--out",
          dir.path(out)};
}

}  // namespace

TEST(ResultsLayout, CompareThreadsGiveByteIdenticalFolders) {
  TempDir dir("threads");
  auto a = run_cli(compare_workload(dir, "serial", "1"));
  ASSERT_EQ(a.status, 0) << a.err;
  auto b = run_cli(compare_workload(dir, "parallel", "2"));
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out.substr(0, a.out.find("results:")), b.out.substr(0, b.out.find("results:")));
  const auto s = folder(dir.path("serial")), p = folder(dir.path("parallel"));
  ASSERT_EQ(s.size(), p.size());
  EXPECT_EQ(s.size(),
            1u + 3u + 2u +
                2u * 5u);  // marker, results.json, records.csv, summary.csv, report.html and .json, jobs/rounds x 5
  for (const auto& [name, content] : s)
    EXPECT_EQ(without_provenance(name, content), without_provenance(name, p.at(name))) << name;
}

TEST(ResultsLayout, ExperimentThreadsGiveByteIdenticalFolders) {
  TempDir dir("exp-threads");
  const std::string exp = write_layout_experiment(dir);
  for (const char* t : {"1", "2"}) {
    auto r =
        run_cli({"cluster", "compare", "--experiment", exp, "--threads", t, "--out", dir.path(std::string("t") + t)});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto s = folder(dir.path("t1")), p = folder(dir.path("t2"));
  ASSERT_EQ(s.size(), p.size());
  EXPECT_EQ(s.size(), 1u + 5u + 2u * 9u);  // the marker, 5 shared files, jobs/rounds x 9 runs
  for (const auto& [name, content] : s)
    EXPECT_EQ(without_provenance(name, content), without_provenance(name, p.at(name))) << name;
}

TEST(ResultsLayout, BothComparePathsWriteTheSameLayout) {
  TempDir dir("layout");
  ASSERT_EQ(run_cli(compare_workload(dir, "w", "2")).status, 0);
  ASSERT_EQ(
      run_cli({"cluster", "compare", "--experiment", write_layout_experiment(dir), "--out", dir.path("e")}).status, 0);
  const auto w = nlohmann::json::parse(slurp(dir.path("w/results.json")));
  const auto e = nlohmann::json::parse(slurp(dir.path("e/results.json")));
  EXPECT_EQ(keys(w), keys(e));
  EXPECT_EQ(w["record_kind"], "policy");
  EXPECT_EQ(keys(w["records"][0]), keys(e["records"][0]));
  EXPECT_EQ(keys(w["records"][0]["metrics"]), keys(e["records"][0]["metrics"]));
  EXPECT_EQ(keys(w["records"][0]["files"]), keys(e["records"][0]["files"]));
  EXPECT_EQ(keys(w["summary"][0]), keys(e["summary"][0]));
  EXPECT_EQ(keys(w["summary"][0]["metrics"]), keys(e["summary"][0]["metrics"]));
  EXPECT_EQ(e["records"].size(), 9u);
  EXPECT_EQ(e["summary"].size(), 3u);
  EXPECT_EQ(e["summary"][0]["runs"], 3);
  for (const char* k :
       {"cluster", "cluster_servers", "cluster_gpus", "round_s", "restart_delay_s", "policy_params", "seeds"}) {
    EXPECT_TRUE(w["inputs"].contains(k)) << k;
    EXPECT_TRUE(e["inputs"].contains(k)) << k;
  }
  // Same files: the derived CSVs with the same headers, and per-record detail files by the same rule.
  const std::regex detail("(jobs|rounds)-[a-z0-9-]+-seed[0-9]+\\.csv");
  for (const char* d : {"w", "e"}) {
    std::set<std::string> names;
    for (const auto& [name, content] : folder(dir.path(d)))
      if (!std::regex_match(name, detail)) names.insert(name);
    EXPECT_EQ(names, (std::set<std::string>{".dmlkit-output", "records.csv", "report.html", "report.json",
                                            "results.json", "summary.csv"}))
        << d;
    for (const auto& rec : nlohmann::json::parse(slurp(dir.path(std::string(d) + "/results.json")))["records"])
      for (const auto& [k, f] : rec["files"].items()) EXPECT_TRUE(fs::exists(dir.path(d) + "/" + f.get<std::string>()));
  }
  auto header = [&](const std::string& f) { return slurp(f).substr(0, slurp(f).find('\n')); };
  EXPECT_EQ(header(dir.path("w/records.csv")), header(dir.path("e/records.csv")));
  EXPECT_EQ(header(dir.path("w/summary.csv")), header(dir.path("e/summary.csv")));
  EXPECT_EQ(header(dir.path("w/jobs-fifo-seed5.csv")), header(dir.path("e/jobs-fifo-seed1.csv")));
}
