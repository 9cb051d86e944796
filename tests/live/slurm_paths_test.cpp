// Every path Slurm sees is absolute (issue 36, item 1): slurmd resolves a relative script, output
// or work folder from its own folder (and -o from --chdir), so a replay with a relative --out
// failed every job. Checked without Slurm: a stand-in `sbatch` records the arguments it was given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "live/slurm_names.h"

namespace dmlkit::live {
namespace {

namespace fs = std::filesystem;

// A folder with an `sbatch` that writes its arguments, one a line, to args.txt and prints job id 42.
struct FakeSbatch {
  fs::path dir;
  FakeSbatch() {
    char tmpl[] = "/tmp/dmlkit-fake-sbatch-XXXXXX";
    dir = mkdtemp(tmpl);
    const fs::path tool = dir / "sbatch";
    std::ofstream(tool) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '"
                        << (dir / "args.txt").string() << "'\necho 42\n";
    fs::permissions(tool, fs::perms::owner_all);
  }
  ~FakeSbatch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::vector<std::string> args() const {
    std::ifstream in(dir / "args.txt");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

std::string value_after(const std::vector<std::string>& args, const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) return args[i + 1];
  return "";
}

std::string value_of(const std::vector<std::string>& args, const std::string& prefix) {
  for (const auto& a : args)
    if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
  return "";
}

TEST(SlurmClientSubmit, GivesSlurmAbsolutePathsForARelativeScriptOutputAndWorkFolder) {
  FakeSbatch fake;
  SlurmClientOptions so;
  so.bin_dir = fake.dir.string();
  SlurmClient slurm(so);
  JobRequest q;
  q.script = "out/replay.work/replay-job.sh";
  q.output = "out/replay.work/out/%j.out";
  q.work_dir = "out/replay.work";
  q.script_args = {"/abs/done/a"};
  ASSERT_EQ(slurm.submit(q), 42);
  const auto args = fake.args();
  const fs::path cwd = fs::current_path();
  EXPECT_EQ(value_after(args, "-o"), (cwd / "out/replay.work/out/%j.out").string());
  EXPECT_EQ(value_of(args, "--chdir="), (cwd / "out/replay.work").string());
  ASSERT_GE(args.size(), 2u);
  EXPECT_EQ(args[args.size() - 2], (cwd / "out/replay.work/replay-job.sh").string());
  EXPECT_EQ(args.back(), "/abs/done/a");
}

}  // namespace
}  // namespace dmlkit::live
