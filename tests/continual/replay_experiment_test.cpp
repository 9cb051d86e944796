// Tests of the replay experiment on a small synthetic image set and of the continual CLI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "continual/replay_experiment.h"
#include "core/error.h"
#include "core/rng.h"
#include "dmlkit/cli.h"

namespace dmlkit::continual {
namespace {

// 4 classes of 4x4 images: class c lights pixel c strongly plus noise; tasks (0 vs 1), (2 vs 3).
ImageSet toy_images(int per_class, uint64_t seed) {
  ImageSet s;
  s.rows = s.cols = 4;
  Rng rng(seed);
  for (int i = 0; i < per_class * 4; ++i) {
    const int c = i % 4;
    for (int p = 0; p < 16; ++p) s.pixels.push_back(static_cast<uint8_t>(p == c ? 255 : rng.uniform_int(0, 60)));
    s.labels.push_back(static_cast<uint8_t>(c));
  }
  return s;
}

ReplayExperimentConfig toy_config() {
  ReplayExperimentConfig c;
  c.tasks = 2;
  c.train_per_class = 50;
  c.test_per_class = 50;
  c.filters_per_class = 4;
  c.epochs = 10;
  c.learning_rate = 0.5;
  c.batch_size = 8;
  c.strategies = {"random", "mid-angle"};
  c.buffer_sizes = {0, 40};
  c.seeds = 2;
  return c;
}

TEST(ReplayExperiment, ProducesOneRecordPerStrategyAndBufferAndIsDeterministic) {
  const auto train = toy_images(50, 1), test = toy_images(50, 2);
  auto c = toy_config();
  const auto a = run_replay_experiment(train, test, c);
  ASSERT_EQ(a.points.size(), 4u);
  ASSERT_EQ(a.runs.size(), 8u);
  ASSERT_EQ(a.task_angles_deg.size(), 1u);
  for (const auto& r : a.runs) {
    ASSERT_EQ(r.accuracy.size(), 2u);
    EXPECT_GT(r.last_task_accuracy, 0.9);  // the toy tasks are easy
    EXPECT_NEAR(r.old_task_accuracy, r.accuracy[1][0], 1e-12);
    EXPECT_NEAR(r.average_forgetting, r.accuracy[0][0] - r.accuracy[1][0], 1e-12);
  }
  c.threads = 1;
  const auto b = run_replay_experiment(train, test, c);
  for (size_t i = 0; i < a.runs.size(); ++i) EXPECT_EQ(a.runs[i].accuracy, b.runs[i].accuracy);
  // A run does not depend on the other strategies or sizes of the command.
  c.strategies = {"random"};
  c.buffer_sizes = {40};
  const auto alone = run_replay_experiment(train, test, c);
  EXPECT_EQ(alone.runs[0].accuracy, a.runs[2].accuracy);  // (random, 40, seed 0)
  c.strategies = {"bogus"};
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);
}

TEST(ReplayExperiment, ClassIncrementalScenarioForgetsWithoutReplayAndReplayHelps) {
  // Real Fashion-MNIST (installed by scripts/install-deps.sh), two tasks, small sizes.
  if (!std::filesystem::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist not installed";
  const auto train = load_fashion_mnist(kFashionMnistDir, "train"), test = load_fashion_mnist(kFashionMnistDir, "t10k");
  ReplayExperimentConfig c;
  c.scenario = Scenario::class_il;
  c.tasks = 2;
  c.train_per_class = 300;
  c.test_per_class = 200;
  c.filters_per_class = 8;
  c.strategies = {"class-balanced"};
  c.buffer_sizes = {0, 100};
  c.seeds = 1;
  const auto r = run_replay_experiment(train, test, c);
  ASSERT_EQ(r.points.size(), 2u);
  // Without replay the 4-way head predicts only the newest classes: task 0 is forgotten.
  EXPECT_LT(r.points[0].old_acc_mean, 0.2);
  EXPECT_GT(r.points[0].last_acc_mean, 0.8);
  EXPECT_GT(r.points[1].old_acc_mean, r.points[0].old_acc_mean + 0.1);  // measured 0.01 -> 0.21
  EXPECT_THROW(parse_scenario("domain-il"), Error);
}

TEST(ContinualCli, AngleSweepWritesOneRecordPerVariantAndAngle) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "dmlkit_continual_cli_test";
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {"dmlkit", "continual", "angle-sweep", "--angles", "30,160", "--variants", "cl,replay",
                        "--seeds", "2", "--epochs", "200", "--test-per-task", "100", "--out", out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(app::run_cli(15, argv, out, err), 0) << err.str();
  std::ifstream f(dir / "results.json");
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["records"].size(), 4u);
  EXPECT_EQ(j["records"][0]["runs"], 2);
  EXPECT_EQ(j["variants"].size(), 2u);
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "sweep.csv"));
  const char* bad[] = {"dmlkit", "continual", "angle-sweep", "--variants", "sgd", "--out", out_dir.c_str()};
  std::ostringstream o2, e2;
  EXPECT_EQ(app::run_cli(7, bad, o2, e2), 2);
  EXPECT_NE(e2.str().find("sgd"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlkit::continual
