// `dmlkit continual replay` and `angle-sweep` from the command line: the class-incremental CNN's
// settings recorded in results.json, one record per variant and angle, bad settings exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "continual/idx_reader.h"
#include "dmlkit/cli.h"

namespace dmlkit::continual {
namespace {

TEST(ContinualCli, ClassIncrementalReplayRecordsTheCnnSettings) {
  namespace fs = std::filesystem;
  if (!fs::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist not installed";
  const auto dir = fs::temp_directory_path() / "dmlkit_continual_cnn_cli_test";
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {"dmlkit",
                        "continual",
                        "replay",
                        "--scenario",
                        "class-il",
                        "--tasks",
                        "2",
                        "--train-per-class",
                        "50",
                        "--test-per-class",
                        "50",
                        "--strategies",
                        "mid-angle",
                        "--buffer-sizes",
                        "20",
                        "--runs",
                        "1",
                        "--cnn-conv1",
                        "4",
                        "--cnn-features",
                        "32",
                        "--out",
                        out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(app::run_cli(23, argv, out, err), 0) << err.str();
  std::ifstream f(dir / "results.json");
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["inputs"]["scenario"], "class-il");
  EXPECT_EQ(j["inputs"]["cnn_conv1_channels"], 4);
  EXPECT_EQ(j["inputs"]["cnn_feature_dim"], 32);
  EXPECT_EQ(j["inputs"]["cnn_batch_size"], 10);
  ASSERT_EQ(j["summary"].size(), 1u);
  const double acc = j["summary"][0]["metrics"]["old_task_accuracy"]["mean"];
  EXPECT_GE(acc, 0.0);
  EXPECT_LE(acc, 1.0);
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  fs::remove_all(dir);
  // A kernel too large for 28x28 images: one line naming the field, exit 2, no output folder.
  const char* bad[] = {"dmlkit",       "continual", "replay", "--scenario",   "class-il",
                       "--cnn-kernel", "30",        "--out",  out_dir.c_str()};
  std::ostringstream o2, e2;
  EXPECT_EQ(app::run_cli(9, bad, o2, e2), 2);
  EXPECT_NE(e2.str().find("kernel"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
}

TEST(ContinualCli, AngleSweepWritesOneRecordPerVariantAndAngle) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "dmlkit_continual_cli_test";
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {"dmlkit",     "continual",       "angle-sweep", "--angles", "30,160",
                        "--variants", "cl,replay",       "--runs",      "2",        "--epochs",
                        "200",        "--test-per-task", "100",         "--out",    out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(app::run_cli(15, argv, out, err), 0) << err.str();
  std::ifstream f(dir / "results.json");
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["records"].size(), 8u);  // 2 variants x 2 angles x 2 seeds
  ASSERT_EQ(j["summary"].size(), 4u);
  EXPECT_EQ(j["summary"][0]["runs"], 2);
  EXPECT_EQ(j["summary"][1]["params"]["angle_deg"], 160.0);
  EXPECT_EQ(j["derived"]["variants"].size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "summary.csv"));
  EXPECT_TRUE(fs::exists(dir / "records.csv"));
  const char* bad[] = {"dmlkit", "continual", "angle-sweep", "--variants", "sgd", "--out", out_dir.c_str()};
  std::ostringstream o2, e2;
  EXPECT_EQ(app::run_cli(7, bad, o2, e2), 2);
  EXPECT_NE(e2.str().find("sgd"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlkit::continual
