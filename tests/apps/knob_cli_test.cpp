// Knobs on the command line (issue 11, defect 4): every command of every family rejects a knob
// that none of the selected policies/schedulers declares (exit 2, one line naming the valid ones)
// and a value of the wrong type, before any work; and `<family> list -v` prints the knobs from the
// registry table (listing commands also answer to `list`).
#include <gtest/gtest.h>

#include "cli_test_util.h"
#include "cluster/workload/experiment.h"

using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::TempDir;

namespace {

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST(KnobCli, EveryClusterCommandRejectsAnUnknownKnob) {
  TempDir dir("knobs");
  const std::string out = dir.path("out");
  const std::vector<std::string> typo = {"--policy-param", "drf.typo=3"};
  // cluster simulate / compare (workload)
  expect_bad_input(
      with({"cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy", "drf", "--out", out},
           typo),
      dir, {"drf.typo", "no knob of drf", "valid: none"});
  expect_bad_input(with({"cluster", "compare", "--workload", "pollux-6", "--cluster", "16x4", "--policies", "fifo,drf",
                         "--out", out},
                        typo),
                   dir, {"drf.typo", "valid: fifo.backfill"});
  // cluster compare --experiment: was accepted (exit 0) before
  expect_bad_input(with({"cluster", "compare", "--experiment", "optimus-testbed", "--out", out}, typo), dir,
                   {"drf.typo", "valid: optimus."});
  // a knob of a policy that the experiment does not run
  expect_bad_input(with({"cluster", "compare", "--experiment", "optimus-testbed", "--policies", "drf", "--out", out},
                        {"--policy-param", "tetris.fairness=0.1"}),
                   dir, {"tetris.fairness", "no knob of drf"});
  expect_bad_input(with({"cluster", "compare", "--experiment", "optimus-testbed", "--out", out},
                        {"--policy-param", "tetris.fairness=2"}),
                   dir, {"tetris.fairness", "'2'"});
  // cluster serve / replay: rejected before Slurm is contacted (was accepted before)
  expect_bad_input(
      with({"cluster", "serve", "--slurm", "--policy", "drf", "--slurm-conf", dir.path("none.conf")}, typo), dir,
      {"drf.typo", "no knob of drf"});
  expect_bad_input(with({"cluster", "replay", "--slurm", "--policy", "tiresias", "--slurm-conf", dir.path("none.conf"),
                         "--out", out},
                        {"--policy-param", "tiresias.queue=2"}),
                   dir, {"tiresias.queue", "valid: tiresias.queues"});
  expect_bad_input(with({"cluster", "serve", "--slurm", "--policy", "tiresias", "--slurm-conf", dir.path("none.conf")},
                        {"--policy-param", "tiresias.queues=two"}),
                   dir, {"tiresias.queues", "'two'"});
}

TEST(KnobCli, CommRejectsAnOptionNoChosenSchedulerReads) {
  TempDir dir("comm-knobs");
  const std::string out = dir.path("out");
  expect_bad_input({"comm", "simulate", "--scheduler", "fifo", "--fusion-mb", "4", "--out", out}, dir,
                   {"--fusion-mb", "no knob of fifo"});
  expect_bad_input(
      {"comm", "compare", "--arch", "allreduce", "--schedulers", "fifo,ddp", "--credit-mb", "8", "--out", out}, dir,
      {"--credit-mb", "valid: --bucket-mib"});
}

TEST(KnobCli, ListingsPrintKnobsFromTheRegistry) {
  auto p = run_cli({"cluster", "policies", "-v"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.out.find("\ttiresias.queues\tint in [1, 64]\tdefault 3 (pollux profile: 2)\t"), std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("policies/ps/ps_drf.cpp"), std::string::npos) << "the PS dispatch is visible";
  EXPECT_EQ(run_cli({"cluster", "list", "-v"}).out, p.out);
  EXPECT_EQ(run_cli({"cluster", "list"}).out, run_cli({"cluster", "policies"}).out);
  auto c = run_cli({"comm", "schedulers", "-v"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("horovod\tallreduce\t"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("\thorovod.fusion-mb\tdouble >= 0\tdefault 64\t"), std::string::npos) << c.out;
  EXPECT_EQ(run_cli({"comm", "list", "-v"}).out, c.out);
  auto i = run_cli({"influence", "algorithms", "-v"});
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_NE(i.out.find("\trsb.gamma\tdouble in (0, 1]\tdefault 0.2\t"), std::string::npos) << i.out;
  EXPECT_EQ(run_cli({"influence", "list", "-v"}).out, i.out);
  auto s = run_cli({"continual", "strategies", "-v"});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("mid-angle\t"), std::string::npos) << s.out;
  EXPECT_EQ(run_cli({"continual", "list"}).out, run_cli({"continual", "strategies"}).out);
}
