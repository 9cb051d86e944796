// `make install` (issue 20): the installed program runs from its prefix, finds its data beside
// itself (PREFIX/share/dmlkit/data, not this build's checkout), and ships the generated bash
// completion and man page. Issue 36: the installed tree stands alone -- the Python module, the
// CLI's Python plugin and the libtorch plugin are installed, and everything runs with the build
// folder and the source tree out of reach.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
  const auto bash =
      run_process({"bash", "-c",
                   "source '" + prefix +
                       "/share/bash-completion/completions/dmlkit' && "
                       "COMP_WORDS=(dmlkit cluster comp) COMP_CWORD=2 && _dmlkit && echo \"${COMPREPLY[@]}\""},
                  {}, 30);
  ASSERT_TRUE(bash.ok()) << bash.err;
  EXPECT_EQ(bash.out, "compare\n");
  const auto man = run_process({"man", "-l", "-P", "cat", prefix + "/share/man/man1/dmlkit.1"}, {}, 30);
  if (man.started && man.exit_code == 0) {
    EXPECT_NE(man.out.find("cluster compare"), std::string::npos);
  }
}

// The file of `dir` whose name starts with `stem` ("" if none): the extension's name carries the
// interpreter's ABI tag (_dmlkit.cpython-311-x86_64-linux-gnu.so).
std::string find_file(const std::string& dir, const std::string& stem) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(stem, 0) == 0) return it->path().string();
  return {};
}

// `argv` in a private mount namespace where empty folders are mounted over the build folder and the
// source tree: nothing there can be read. Unprivileged users get one through a user namespace.
std::vector<std::string> out_of_reach(const std::vector<std::string>& argv) {
  const std::string build_dir = fs::path(DMLKIT_BINARY).parent_path().parent_path().string();
  std::vector<std::string> wrapped{"unshare",
                                   "--user",
                                   "--map-root-user",
                                   "--mount",
                                   "--",
                                   "sh",
                                   "-c",
                                   "mount -t tmpfs none \"$1\" && mount -t tmpfs none \"$2\" && shift 2 && "
                                   "exec \"$@\"",
                                   "sh",
                                   build_dir,
                                   DMLKIT_SOURCE_DIR};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

TEST(Install, TheInstalledTreeWorksWithTheBuildFolderOutOfReach) {
  const auto probe = run_process(out_of_reach({"sh", "-c", "test ! -e \"$0\"", DMLKIT_BINARY}), {}, 30);
  if (!probe.ok()) GTEST_SKIP() << "no private mount namespace here (unshare): " << probe.err;
  TempDir dir("install-alone");
  const std::string build_dir = fs::path(DMLKIT_BINARY).parent_path().parent_path().string();
  const std::string stage = dir.path("stage");
  const std::string prefix = "/opt/dmlkit-install-test";
  const std::string root = stage + prefix;
  // `make install DESTDIR=... PREFIX=...` runs exactly this.
  const auto install = run_process({"cmake", "--install", build_dir, "--prefix", prefix}, {{"DESTDIR", stage}}, 300);
  ASSERT_TRUE(install.ok()) << install.err;
  const std::string exe = root + "/bin/dmlkit";
  EXPECT_TRUE(fs::is_regular_file(root + "/lib/dmlkit/libdmlkit_python.so"));
  EXPECT_TRUE(fs::is_regular_file(root + "/lib/dmlkit/libdmlkit_torch.so"));
  const std::string site = find_file(root + "/lib", "python3.");
  ASSERT_FALSE(site.empty()) << "no PREFIX/lib/python3.X";
  const std::string package = site + "/dist-packages/dmlkit";
  EXPECT_TRUE(fs::is_regular_file(package + "/__init__.py"));
  EXPECT_TRUE(fs::is_regular_file(package + "/cluster.py"));
  EXPECT_FALSE(find_file(package, "_dmlkit.").empty()) << "no extension module in " << package;
  // A Python policy outside both trees.
  std::ofstream(dir.path("fifo.py")) << std::ifstream(std::string(DMLKIT_SOURCE_DIR) + "/examples/fifo.py").rdbuf();
  const std::vector<std::pair<std::string, std::string>> clean_env{
      {"DMLKIT_DATA_DIR", ""},   {"DMLKIT_DATA", ""},         {"DMLKIT_PYTHON_PLUGIN", ""},
      {"DMLKIT_PYTHONPATH", ""}, {"DMLKIT_TORCH_PLUGIN", ""}, {"DMLKIT_BINARY", ""},
      {"PYTHONPATH", ""}};

  const auto run = run_process(out_of_reach({exe, "cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4",
                                             "--policy", "fifo", "--out", dir.path("cpp"), "--format", "json"}),
                               clean_env, 180);
  ASSERT_TRUE(run.ok()) << run.err;
  const auto py_policy = run_process(
      out_of_reach({exe, "cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy-file",
                    dir.path("fifo.py") + ":Fifo", "--out", dir.path("py"), "--format", "json"}),
      clean_env, 180);
  ASSERT_TRUE(py_policy.ok()) << py_policy.err;
  // The Python FIFO is the C++ one (examples/fifo.py): same average JCT.
  const auto cpp_json = nlohmann::json::parse(run.out), py_json = nlohmann::json::parse(py_policy.out);
  EXPECT_EQ(py_json["records"][0]["name"], "py-fifo");
  EXPECT_EQ(py_json["records"][0]["metrics"]["avg_jct_s"], cpp_json["records"][0]["metrics"]["avg_jct_s"]);

  // Debian's python3 imports the installed module, which reads the installed data.
  auto env = clean_env;
  env.back() = {"PYTHONPATH", site + "/dist-packages"};
  const auto python = run_process(
      out_of_reach({"/usr/bin/python3", "-c",
                    "import dmlkit, sys\n"
                    "assert dmlkit.__file__.startswith(sys.argv[1]), dmlkit.__file__\n"
                    "r = dmlkit.cluster.simulate(workload='pollux-6', cluster='16x4', policy='fifo', seed=1)\n"
                    "print(len(r.records))\n",
                    package}),
      env, 180);
  ASSERT_TRUE(python.ok()) << python.err << python.out;
  EXPECT_EQ(python.out, "1\n");
}

}  // namespace
}  // namespace dmlkit::testing
