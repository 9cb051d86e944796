// The local runner: every cell runs once, finished cells are skipped on a re-run (resume), a
// failing cell is retried and then reported, bad input (exit 2) is not retried, and a cell that
// exits 0 without results.json counts as failed. Cells run as subprocesses of a fake binary.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "sweep/fake_binary.h"
#include "sweep/runner.h"
#include "sweep/sweep_dir.h"

namespace dmlkit::sweep {
namespace {

namespace fs = std::filesystem;

class SweepRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("dmlkit-sweep-runner-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    fake_ = std::make_unique<test::FakeBinary>((root_ / "bin").string());
    dir_ = (root_ / "sweep").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  Plan plan(const std::string& xs) {
    return make_plan(parse_sweep_file("command: fake run\naxes:\n  x: [" + xs + "]\n", "s.yaml"));
  }
  RunOptions options(int jobs, int retries) {
    RunOptions o;
    o.binary = fake_->path();
    o.jobs = jobs;
    o.retries = retries;
    o.terminal = false;
    return o;
  }

  fs::path root_;
  std::unique_ptr<test::FakeBinary> fake_;
  std::string dir_;
};

TEST_F(SweepRunner, RunsEveryCellOnceAndResumeSkipsFinishedCells) {
  const Plan p = plan("1, 6, 7, 8, 9");
  prepare_sweep_dir(dir_, p);
  const RunReport first = run_cells(dir_, p.cells, options(2, 1));
  EXPECT_EQ(first.done, 5u);
  EXPECT_EQ(first.failed, 0u);
  EXPECT_EQ(first.skipped, 0u);
  for (const auto& c : p.cells) {
    EXPECT_TRUE(cell_finished(dir_, c.name)) << c.name;
    EXPECT_EQ(read_state(dir_, c.name).status, "done");
    EXPECT_EQ(read_state(dir_, c.name).attempts, 1);
  }
  // Interrupted sweep: one cell's output is gone; the re-run runs only that one.
  fs::remove_all(cell_dir(dir_, p.cells[2].name));
  prepare_sweep_dir(dir_, p);
  const RunReport second = run_cells(dir_, p.cells, options(2, 1));
  EXPECT_EQ(second.skipped, 4u);
  EXPECT_EQ(second.done, 1u);
  EXPECT_EQ(fake_->call_count("7"), 2u);
  EXPECT_EQ(fake_->call_count("1"), 1u);
  EXPECT_EQ(fake_->call_count("9"), 1u);
  // Everything finished: nothing runs.
  const RunReport third = run_cells(dir_, p.cells, options(2, 1));
  EXPECT_EQ(third.skipped, 5u);
  EXPECT_EQ(third.done, 0u);
  EXPECT_EQ(fake_->calls().size(), 12u);  // six calls of one digit and a newline
}

TEST_F(SweepRunner, AFailingCellIsRetriedThenReported) {
  const Plan p = plan("1, 2, 3");
  prepare_sweep_dir(dir_, p);
  const RunReport rep = run_cells(dir_, p.cells, options(1, 2));
  EXPECT_EQ(rep.done, 2u);  // 1, and 3 on its second attempt
  EXPECT_EQ(rep.failed, 1u);
  EXPECT_EQ(fake_->call_count("2"), 3u);  // first attempt + 2 retries
  EXPECT_EQ(fake_->call_count("3"), 2u);
  EXPECT_EQ(rep.retried, 3u);
  ASSERT_EQ(rep.failed_cells.size(), 1u);
  EXPECT_EQ(rep.failed_cells[0], "x=2: dmlkit: cell 2 always fails (3 attempts)");
  const CellState s = read_state(dir_, "x=2");
  EXPECT_EQ(s.status, "failed");
  EXPECT_EQ(s.exit_code, 1);
  EXPECT_EQ(s.attempts, 3);
  EXPECT_EQ(read_state(dir_, "x=3").status, "done");
  // A re-run tries the failed cell again (and only it).
  const RunReport again = run_cells(dir_, p.cells, options(1, 0));
  EXPECT_EQ(again.skipped, 2u);
  EXPECT_EQ(again.failed, 1u);
  EXPECT_EQ(fake_->call_count("2"), 4u);
}

TEST_F(SweepRunner, BadInputIsNotRetriedAndNoOutputIsAFailure) {
  const Plan p = plan("4, 5");
  prepare_sweep_dir(dir_, p);
  const RunReport rep = run_cells(dir_, p.cells, options(2, 3));
  EXPECT_EQ(rep.failed, 2u);
  EXPECT_EQ(fake_->call_count("4"), 1u);  // exit 2: the same input fails again
  EXPECT_EQ(fake_->call_count("5"), 4u);
  EXPECT_EQ(read_state(dir_, "x=5").error, "exited 0 but wrote no complete results.json");
  EXPECT_EQ(read_state(dir_, "x=4").exit_code, 2);
}

TEST_F(SweepRunner, SweepFolderRefusesOtherFoldersAndChangedArguments) {
  const Plan p = plan("1, 6");
  // A folder holding someone's file is refused (core/output_dir.h rules).
  fs::create_directories(dir_);
  { std::ofstream(dir_ + "/notes.txt") << "mine"; }
  EXPECT_THROW(prepare_sweep_dir(dir_, p), Error);
  fs::remove(dir_ + "/notes.txt");
  prepare_sweep_dir(dir_, p);
  // The same cell names with other fixed arguments: the old results would be mixed in.
  const Plan changed =
      make_plan(parse_sweep_file("command: fake run\nargs: {y: 1}\naxes:\n  x: [1, 6]\n", "s.yaml"));
  try {
    prepare_sweep_dir(dir_, changed);
    FAIL() << "accepted a sweep folder of other arguments";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ran with other arguments"), std::string::npos) << e.what();
  }
  // More cells (a new axis value) resume fine.
  prepare_sweep_dir(dir_, plan("1, 6, 7"));
  EXPECT_EQ(read_plan(dir_).cells.size(), 3u);
}

TEST(SweepFormat, Durations) {
  EXPECT_EQ(format_duration(12.4), "12 s");
  EXPECT_EQ(format_duration(200), "3 min 20 s");
  EXPECT_EQ(format_duration(3900), "1 h 05 min");
}

}  // namespace
}  // namespace dmlkit::sweep
