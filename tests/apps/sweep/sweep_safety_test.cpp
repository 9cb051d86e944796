// Issue 36: `sweep plan` runs no code (item 7): a sweep naming a Python policy file is planned
// without executing the file, which is still checked to exist; and a cell that hits a full disk
// (exit status 3, an environment failure) is retried, unlike bad input (item 12).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"
#include "core/subprocess.h"

namespace {

namespace fs = std::filesystem;

// Each test's files in the project's temporary folder (tests/apps/cli_test_util.h).
class SweepSafety : public ::testing::Test {
 protected:
  std::string file(const std::string& name, const std::string& text) { return dir_.write(name, text); }
  std::string path(const std::string& name) const { return dir_.path(name); }
  dmlkit::testing::TempDir dir_{"sweep-safety"};
};

TEST_F(SweepSafety, PlanDoesNotRunAPythonPolicyFile) {
  const std::string marker = path("ran");
  const std::string policy = file("evil.py", "open(" + nlohmann::json(marker).dump() +
                                                 ", 'w').write('the plan ran me')\n"
                                                 "import dmlkit\n"
                                                 "class P(dmlkit.cluster.Policy):\n"
                                                 "    name = 'py-evil'\n"
                                                 "    def schedule(self, view, jobs):\n"
                                                 "        return None\n");
  const std::string sweep = file("s.yaml",
                                 "command: cluster simulate\n"
                                 "args: {cluster: 4x4, workload: synthetic, synthetic-jobs: 10, "
                                 "policy: py-evil, policy-file: '" +
                                     policy +
                                     ":P'}\n"
                                     "axes:\n  seed: [1, 2]\n");
  const auto r = dmlkit::run_process({DMLKIT_BINARY, "sweep", "plan", sweep}, {}, 120);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 cells"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(marker)) << "sweep plan executed the policy file";
  // What can be checked without running the file still is: a missing file is refused.
  const std::string missing = file("m.yaml",
                                   "command: cluster simulate\n"
                                   "args: {cluster: 4x4, workload: synthetic, policy-file: '" +
                                       path("nope.py") + ":P'}\naxes:\n  seed: [1]\n");
  const auto m = dmlkit::run_process({DMLKIT_BINARY, "sweep", "plan", missing}, {}, 120);
  EXPECT_EQ(m.exit_code, 2) << m.err;
  EXPECT_NE(m.err.find("nope.py: no such file"), std::string::npos) << m.err;
}

// The cells write their report into a folder with a file-size limit that cuts them short (EFBIG,
// as a full disk's ENOSPC): each fails with exit status 3 and is tried again.
TEST_F(SweepSafety, ACellThatHitsAFullDiskIsRetried) {
  const std::string sweep = file("s.yaml",
                                 "command: cluster simulate\n"
                                 "args: {cluster: 4x4, workload: synthetic, synthetic-jobs: 10}\n"
                                 "axes:\n  seed: [1]\n");
  const std::string dir = path("sweep");
  const auto r = dmlkit::run_process({"bash", "-c", "trap '' XFSZ; ulimit -f 40; exec \"$0\" \"$@\"", DMLKIT_BINARY,
                                      "sweep", "run", sweep, "--out", dir, "--retries", "1", "--dmlkit", DMLKIT_BINARY},
                                     {}, 300);
  ASSERT_TRUE(r.started);
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(dir + "/state/seed=1.json");
  ASSERT_TRUE(in) << "no state file; " << r.err;
  const auto state = nlohmann::json::parse(in);
  EXPECT_EQ(state["exit_code"], 3) << state.dump();
  EXPECT_EQ(state["attempts"], 2) << state.dump();
  EXPECT_EQ(state["status"], "failed") << state.dump();
}

}  // namespace
