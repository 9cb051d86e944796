// Collect: the merged table has the axis values per record (seed left to the record), the cells'
// files under cells/NAME/, the summary over seeds, missing and failed cells listed, and it is the
// same whatever order the cells ran in.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/table.h"
#include "sweep/collect.h"
#include "sweep/fake_binary.h"
#include "sweep/runner.h"

namespace dmlkit::sweep {
namespace {

namespace fs = std::filesystem;

class SweepCollect : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("dmlkit-sweep-collect-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fake_ = std::make_unique<test::FakeBinary>((root_ / "bin").string());
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes a cell's results.json as the command would (two policies, the seed of the cell).
  static void write_cell(const std::string& dir, const Cell& c) {
    fs::create_directories(cell_dir(dir, c.name));
    const double load = c.values["load"].get<double>();
    const int seed = c.values["seed"].get<int>();
    std::ofstream(cell_dir(dir, c.name) + "/results.json")
        << R"({"schema_version": 2, "record_kind": "policy", "records": [)"
        << R"({"name": "fifo", "seed": )" << seed << R"(, "metrics": {"avg_jct_s": )" << 100 * load + seed
        << R"(, "jobs": 10}, "files": {"jobs_csv": "jobs-fifo.csv"}},)"
        << R"({"name": "srtf", "seed": )" << seed << R"(, "metrics": {"avg_jct_s": )" << 50 * load + seed
        << R"(, "jobs": 10}}]})";
  }

  fs::path root_;
  std::unique_ptr<test::FakeBinary> fake_;
};

const char* kFile = "command: cluster compare\nargs: {cluster: 16x4}\naxes:\n  load: [0.5, 1, 2]\n  seed: [1, 2]\n";

TEST_F(SweepCollect, MergesRecordsWithAxisValues) {
  const Plan p = make_plan(parse_sweep_file(kFile, "s.yaml"));
  const std::string dir = (root_ / "a").string();
  prepare_sweep_dir(dir, p);
  for (const auto& c : p.cells) write_cell(dir, c);
  const Collected c = collect_sweep(dir, p);
  EXPECT_TRUE(c.missing.empty());
  const auto& recs = c.results.records();
  ASSERT_EQ(recs.size(), 12u);
  EXPECT_EQ(c.results.record_kind(), "policy");
  EXPECT_EQ(recs[0].name, "fifo");
  EXPECT_EQ(recs[0].seed, 1u);
  EXPECT_EQ(recs[0].params.dump(), R"({"load":0.5})");  // the seed stays the record's
  EXPECT_EQ(recs[0].files["jobs_csv"], "cells/load=0.5__seed=1/jobs-fifo.csv");
  EXPECT_EQ(recs[0].files["cell"], "cells/load=0.5__seed=1");
  EXPECT_EQ(recs[11].params["load"], 2);
  // The summary groups over seeds: one row per (policy, load).
  const auto groups = c.results.summary();
  ASSERT_EQ(groups.size(), 6u);
  EXPECT_EQ(groups[0].runs, 2u);
  EXPECT_DOUBLE_EQ(groups[0].find("avg_jct_s")->stats.mean, 51.5);
  EXPECT_DOUBLE_EQ(groups[0].find("avg_jct_s")->stats.min, 51);
  const std::string csv = c.results.records_table().to_csv();
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "policy,seed,load,avg_jct_s,jobs");
  // The report: one chart per varying metric against the numeric axis (jobs is the same
  // everywhere), with the min-max band over seeds.
  const std::string html = sweep_report(p, c).render();
  EXPECT_NE(html.find("avg_jct_s against load"), std::string::npos);
  EXPECT_EQ(html.find("jobs against load"), std::string::npos);
  EXPECT_NE(html.find("\"band\""), std::string::npos);
  EXPECT_EQ(numeric_axes(p), std::vector<std::string>{"load"});
  // The printed and reported summary (issue 20's naming rule): each metric under its own name and
  // its spread as X_sd, one precision per column, whole numbers as integers, no "mean ± sd" cell.
  const TextTable t = compact_summary(c.results);
  EXPECT_EQ(t.header(),
            (std::vector<std::string>{"policy", "load", "runs", "avg_jct_s", "avg_jct_s_sd", "jobs", "jobs_sd"}));
  ASSERT_EQ(t.rows().size(), 6u);
  EXPECT_EQ(t.rows()[0], (std::vector<std::string>{"fifo", "0.5", "2", "51.5", "0.7", "10", "0"}));
  EXPECT_EQ(t.render().find("\xc2\xb1"), std::string::npos);
}

TEST_F(SweepCollect, MissingAndFailedCellsAreListed) {
  const Plan p = make_plan(parse_sweep_file(kFile, "s.yaml"));
  const std::string dir = (root_ / "b").string();
  prepare_sweep_dir(dir, p);
  for (size_t i = 0; i < p.cells.size(); ++i)
    if (i != 1 && i != 4) write_cell(dir, p.cells[i]);
  CellState s;
  s.status = "failed";
  s.error = "dmlkit: boom";
  write_state(dir, p.cells[4].name, s);
  const Collected c = collect_sweep(dir, p);
  EXPECT_EQ(c.missing, (std::vector<std::string>{p.cells[1].name, p.cells[4].name}));
  EXPECT_EQ(c.failed, std::vector<std::string>{p.cells[4].name + ": dmlkit: boom"});
  EXPECT_EQ(c.results.records().size(), 8u);
  EXPECT_EQ(c.results.inputs()["missing"].size(), 2u);
  EXPECT_NE(sweep_report(p, c).render().find("Failed cells"), std::string::npos);
}

TEST_F(SweepCollect, SameTableWhateverTheExecutionOrder) {
  const Plan p = make_plan(parse_sweep_file("command: fake run\naxes:\n  x: [1, 6, 7, 8, 9]\n  y: [a, b]\n", "s.yaml"));
  RunOptions o;
  o.binary = fake_->path();
  o.terminal = false;
  // In grid order one at a time, in reverse order, and four at once.
  const std::string d1 = (root_ / "serial").string(), d2 = (root_ / "reverse").string(),
                    d3 = (root_ / "parallel").string();
  for (const auto& d : {d1, d2, d3}) prepare_sweep_dir(d, p);
  o.jobs = 1;
  run_cells(d1, p.cells, o);
  std::vector<Cell> reversed(p.cells.rbegin(), p.cells.rend());
  run_cells(d2, reversed, o);
  o.jobs = 4;
  run_cells(d3, p.cells, o);
  const std::string j1 = collect_sweep(d1, p).results.json_text();
  EXPECT_EQ(j1, collect_sweep(d2, p).results.json_text());
  EXPECT_EQ(j1, collect_sweep(d3, p).results.json_text());
  EXPECT_NE(j1.find("\"x\": 9"), std::string::npos);
  EXPECT_EQ(collect_sweep(d1, p).results.records().size(), 10u);
}

}  // namespace
}  // namespace dmlkit::sweep
