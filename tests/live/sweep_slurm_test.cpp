// `dmlkit sweep run --slurm` on the 4-node lab (scripts/slurm-lab.sh): the cells go into one job
// array (held by the lab's job_submit plugin, released by the sweep), run on the nodes, and the
// sweep survives a killed slurmd and a lost task (cancelled before it ran): its cells are submitted
// again as a new array, and every cell ends with results. Lives in tests/live so it runs alone
// (RUN_SERIAL), like every test that starts the lab.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "live_helpers.h"
#include "sweep/slurm_array.h"
#include "sweep/sweep_dir.h"

namespace dmlkit::live::test {
namespace {

namespace fs = std::filesystem;

TEST(SweepSlurm, JobArraySurvivesAKilledNodeAndALostTask) {
  DMLKIT_LIVE_LAB(lab, 4, 4);
  const std::string file = lab.dir() + "/sweep.yaml";
  // 8 cells of tiny `cluster simulate` runs, one per task, at most 2 tasks at once.
  std::ofstream(file) << "command: cluster simulate\n"
                         "args: {cluster: 4x4, workload: synthetic, synthetic-jobs: 60}\n"
                         "axes:\n  policy: [fifo, srtf]\n  seed: [1, 2, 3, 4]\n";
  const std::string dir = lab.dir() + "/sweep-out";
  const std::vector<std::string> argv = {DMLKIT_BINARY, "sweep", "run",   file,   "--slurm", "--out",
                                         dir,           "--max-parallel", "2", "--poll", "0.3"};
  auto run = std::async(std::launch::async, [&] { return run_process(argv, {{"SLURM_CONF", lab.conf()}}, 150); });

  // Once tasks run: cancel a task that has not started (lost), and kill the slurmd of a node
  // that runs one.
  SlurmClient slurm(lab.client_options());
  // Bounds, not expectations: under load (2 cores, the suite at -j2) a start can take many seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int64_t array = 0;
  std::string busy_node;
  while (std::chrono::steady_clock::now() < deadline && busy_node.empty()) {
    try {
      for (const auto& j : slurm.jobs())
        if (j.array_job_id > 0 && j.active_running() && !j.allocation.empty()) {
          array = j.array_job_id;
          busy_node = j.allocation.front().node;
        }
    } catch (const SlurmError&) {  // a slow slurmctld: ask again
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(busy_node.empty()) << "no array task started within 60 s";
  const ProcessResult cancel =
      run_process({"scancel", std::to_string(array) + "_7"}, {{"SLURM_CONF", lab.conf()}}, 10);
  EXPECT_TRUE(cancel.ok()) << cancel.err;
  ASSERT_TRUE(lab.kill_node(std::stoi(busy_node.substr(4)))) << busy_node;

  const ProcessResult r = run.get();
  ASSERT_TRUE(r.ok()) << r.out << "\n---\n" << r.err;
  EXPECT_NE(r.out.find("submitted job array"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("resubmitted"), std::string::npos) << r.out;  // the cancelled task's cell
  std::cout << r.out;  // what the sweep reported (the time it took is in the last line)
  const sweep::Plan plan = sweep::read_plan(dir);
  ASSERT_EQ(plan.cells.size(), 8u);
  for (const auto& c : plan.cells) EXPECT_TRUE(sweep::cell_finished(dir, c.name)) << c.name << "\n" << r.out;
  EXPECT_GE(sweep::read_submissions(dir).size(), 2u);
  const auto res = nlohmann::json::parse(std::ifstream(dir + "/results.json"));
  EXPECT_EQ(res["records"].size(), 8u);
  // status reads the same folder.
  const ProcessResult st = run_process({DMLKIT_BINARY, "sweep", "status", dir}, {{"SLURM_CONF", lab.conf()}}, 20);
  EXPECT_NE(st.out.find("8 cells: 8 done, 0 failed"), std::string::npos) << st.out << st.err;
}

TEST(SweepSlurm, NoWaitThenStatusThenResume) {
  DMLKIT_LIVE_LAB(lab, 4, 4);
  const std::string file = lab.dir() + "/sweep.yaml";
  std::ofstream(file) << "command: cluster simulate\n"
                         "args: {cluster: 4x4, workload: synthetic, synthetic-jobs: 20}\n"
                         "axes:\n  policy: [fifo, srtf]\n  seed: [1, 2]\n";
  const std::string dir = lab.dir() + "/sweep-out";
  const std::vector<std::pair<std::string, std::string>> env = {{"SLURM_CONF", lab.conf()}};
  const ProcessResult sub = run_process(
      {DMLKIT_BINARY, "sweep", "run", file, "--slurm", "--out", dir, "--chunk", "2", "--no-wait"}, env, 30);
  ASSERT_TRUE(sub.ok()) << sub.err;
  EXPECT_NE(sub.out.find("2 tasks for 4 cells"), std::string::npos) << sub.out;
  const ProcessResult st = run_process({DMLKIT_BINARY, "sweep", "status", dir}, env, 20);
  ASSERT_TRUE(st.ok()) << st.err;
  EXPECT_NE(st.out.find("job array"), std::string::npos) << st.out;
  // Running the sweep again waits for the array if it is still in the queue, or finds every cell
  // finished; it never submits a second array for cells that are queued or done.
  const ProcessResult again =
      run_process({DMLKIT_BINARY, "sweep", "run", file, "--slurm", "--out", dir, "--poll", "0.3"}, env, 60);
  ASSERT_TRUE(again.ok()) << again.out << again.err;
  EXPECT_TRUE(again.out.find("still queued or running") != std::string::npos ||
              again.out.find("every cell is finished already") != std::string::npos)
      << again.out;
  EXPECT_EQ(sweep::read_submissions(dir).size(), 1u);
  EXPECT_NE(again.out.find("4 cells:"), std::string::npos);
  for (const auto& c : sweep::read_plan(dir).cells) EXPECT_TRUE(sweep::cell_finished(dir, c.name)) << c.name;
}

}  // namespace
}  // namespace dmlkit::live::test
