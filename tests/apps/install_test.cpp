// `make install` (issue 20): the installed program runs from its prefix, finds its data beside
// itself (PREFIX/share/dmlkit/data, not this build's checkout), and ships the generated bash
// completion and man page.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"
#include "core/subprocess.h"

namespace dmlkit::testing {
namespace {

namespace fs = std::filesystem;

TEST(Install, TheInstalledProgramUsesItsOwnDataAndShipsCompletionAndManPage) {
  TempDir dir("install");
  const std::string build_dir = fs::path(DMLKIT_BINARY).parent_path().parent_path().string();
  const std::string prefix = dir.path("prefix");
  const auto install = run_process({"cmake", "--install", build_dir, "--prefix", prefix}, {}, 300);
  ASSERT_TRUE(install.ok()) << install.err;
  const std::string exe = prefix + "/bin/dmlkit";
  ASSERT_TRUE(fs::exists(exe));
  EXPECT_TRUE(fs::exists(prefix + "/share/dmlkit/data/workloads"));
  EXPECT_TRUE(fs::exists(prefix + "/share/dmlkit/experiments/dl2-96.yaml"));
  EXPECT_TRUE(fs::exists(prefix + "/share/bash-completion/completions/dmlkit"));
  EXPECT_TRUE(fs::exists(prefix + "/share/man/man1/dmlkit.1"));
  // Its presets and data are the installed ones, not the checkout's.
  const auto presets = run_process({exe, "cluster", "experiments", "-v"}, {{"DMLKIT_DATA_DIR", ""}}, 60);
  ASSERT_TRUE(presets.ok()) << presets.err;
  EXPECT_NE(presets.out.find("file " + prefix + "/share/dmlkit/experiments/"), std::string::npos) << presets.out;
  EXPECT_EQ(presets.out.find(DMLKIT_SOURCE_DIR), std::string::npos) << presets.out;
  const auto run = run_process({exe, "cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy",
                                "fifo", "--out", dir.path("out")},
                               {{"DMLKIT_DATA_DIR", ""}}, 120);
  EXPECT_TRUE(run.ok()) << run.err;
  // The completion script is valid bash and completes subcommands.
  const auto bash = run_process({"bash", "-c",
                                 "source '" + prefix + "/share/bash-completion/completions/dmlkit' && "
                                 "COMP_WORDS=(dmlkit cluster comp) COMP_CWORD=2 && _dmlkit && echo \"${COMPREPLY[@]}\""},
                                {}, 30);
  ASSERT_TRUE(bash.ok()) << bash.err;
  EXPECT_EQ(bash.out, "compare\n");
  const auto man = run_process({"man", "-l", "-P", "cat", prefix + "/share/man/man1/dmlkit.1"}, {}, 30);
  if (man.started && man.exit_code == 0) { EXPECT_NE(man.out.find("cluster compare"), std::string::npos); }
}

}  // namespace
}  // namespace dmlkit::testing
