// Tests of the replay experiment on a small synthetic image set and of the continual CLI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "continual/replay_experiment.h"
#include "core/error.h"
#include "core/rng.h"
#include "toy_images.h"

namespace dmlkit::continual {
namespace {

// 4 classes of 4x4 images: class c lights pixel c strongly plus noise; tasks (0 vs 1), (2 vs 3).
ImageSet toy_images(int per_class, uint64_t seed) { return lit_pixel_images(4, per_class, 1, 60, seed); }

ReplayExperimentConfig toy_replay_config() {
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
  auto c = toy_replay_config();
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

// The task-il head trains on libtorch by default; the Eigen reference gives the same accuracies.
TEST(ReplayExperiment, TorchAndEigenHeadsAgree) {
  const auto train = toy_images(50, 1), test = toy_images(50, 2);
  auto c = toy_replay_config();
  c.learning_rate = 0.05;  // slow enough that the runs differ from each other
  c.epochs = 2;
  c.backend = learn::TrainBackend::torch;
  const auto a = run_replay_experiment(train, test, c);
  c.backend = learn::TrainBackend::eigen;
  const auto b = run_replay_experiment(train, test, c);
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (size_t i = 0; i < a.runs.size(); ++i)
    for (size_t t = 0; t < a.runs[i].accuracy.size(); ++t)
      for (size_t j = 0; j < a.runs[i].accuracy[t].size(); ++j)
        EXPECT_NEAR(a.runs[i].accuracy[t][j], b.runs[i].accuracy[t][j], 0.011);  // one test image of 100
}

// 6 classes of 4x4 images: class c lights pixels c and c+1, so class means overlap and the angle
// between two tasks depends on which classes they hold.
ImageSet overlapping_images(int per_class, uint64_t seed) { return lit_pixel_images(6, per_class, 2, 60, seed); }

// Explicit task classes: (0,1),(2,3) is the default split; other pairs are honoured.
TEST(ReplayExperiment, TaskClassesChooseWhichClassesEachTaskHas) {
  const auto train = overlapping_images(50, 1), test = overlapping_images(50, 2);
  auto c = toy_replay_config();
  const auto by_default = run_replay_experiment(train, test, c);
  c.task_classes = {{0, 1}, {2, 3}};
  const auto explicit_pairs = run_replay_experiment(train, test, c);
  ASSERT_EQ(by_default.runs.size(), explicit_pairs.runs.size());
  for (size_t i = 0; i < by_default.runs.size(); ++i)
    EXPECT_EQ(by_default.runs[i].accuracy, explicit_pairs.runs[i].accuracy);
  EXPECT_EQ(by_default.task_angles_deg, explicit_pairs.task_angles_deg);
  // (0 vs 1) then (2 vs 3): signals e0 - e2 and e2 - e4, about 120 degrees apart;
  // (0 vs 2) then (1 vs 3): e0 + e1 - e2 - e3 and e1 + e2 - e3 - e4, about 75 degrees apart.
  EXPECT_GT(by_default.task_angles_deg[0], 105.0);
  c.task_classes = {{0, 2}, {1, 3}};
  const auto other = run_replay_experiment(train, test, c);
  ASSERT_EQ(other.task_angles_deg.size(), 1u);
  EXPECT_LT(other.task_angles_deg[0], 90.0);
  for (const auto& r : other.runs) EXPECT_GT(r.last_task_accuracy, 0.9);
  c.scenario = Scenario::class_il;
  c.epochs = 1;
  c.buffer_sizes = {40};
  c.seeds = 1;
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);  // 4x4 images are too small for the CNN
  c.backend = learn::TrainBackend::eigen;
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);  // no Eigen version of the CNN
  c.backend = learn::TrainBackend::torch;
  c.scenario = Scenario::task_il;
  c.task_classes = {{0, 1}, {1, 2}};
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);  // class 1 in two tasks
  c.task_classes = {{0, 1}};
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);  // one pair for two tasks
  c.task_classes = {{0, 1}, {2, 7}};
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);  // class 7 has no images
}

TEST(ReplayExperiment, ClassIncrementalCnnForgetsWithoutReplayAndReplayHelps) {
  // Real Fashion-MNIST (installed by scripts/install-deps.sh), three tasks, small sizes.
  ASSERT_TRUE(std::filesystem::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz"))
      << "dataset-fashion-mnist is installed by scripts/install-deps.sh";
  const auto train = load_fashion_mnist(kFashionMnistDir, "train"), test = load_fashion_mnist(kFashionMnistDir, "t10k");
  ReplayExperimentConfig c;
  c.scenario = Scenario::class_il;
  c.tasks = 3;
  c.train_per_class = 200;
  c.test_per_class = 100;
  c.strategies = {"random", "mid-angle"};
  c.buffer_sizes = {0, 12, 240};
  c.seeds = 1;
  c.threads = 2;
  const auto r = run_replay_experiment(train, test, c);
  ASSERT_EQ(r.points.size(), 6u);
  for (const auto& run : r.runs) {
    ASSERT_EQ(run.accuracy.size(), 3u);
    for (size_t i = 0; i < run.accuracy.size(); ++i) {
      ASSERT_EQ(run.accuracy[i].size(), i + 1);
      for (double a : run.accuracy[i]) {
        EXPECT_GE(a, 0.0);
        EXPECT_LE(a, 1.0);
      }
    }
    EXPECT_GT(run.accuracy[0][0], 0.85);     // the first task (T-shirt vs trouser) is learned
    // Coat vs sandal, above chance: measured 0.70-0.99 on earlier build machines and 0.565 on one whose
    // OpenBLAS reports the generic "Prescott" core (coats taken for buffered pullovers): the trained
    // numbers depend on the BLAS kernels the machine gets.
    EXPECT_GT(run.last_task_accuracy, 0.5);
    EXPECT_GE(run.average_forgetting, -1.0);
    EXPECT_LE(run.average_forgetting, 1.0);
  }
  for (size_t s = 0; s < 2; ++s) {
    const auto &none = r.points[3 * s], &small = r.points[3 * s + 1], &big = r.points[3 * s + 2];
    // Without replay the 6-way CNN predicts only the newest classes: the old tasks are forgotten.
    EXPECT_LT(none.old_acc_mean, 0.1) << none.strategy;
    EXPECT_GT(none.forgetting_mean, 0.8) << none.strategy;
    // A 240-sample buffer keeps much more of them than none or 12 samples (2 per class); measured
    // old-task accuracy 0 / 0 / 0.58 (random) and 0 / 0.21 / 0.54 (mid-angle).
    EXPECT_GT(big.old_acc_mean, none.old_acc_mean + 0.2) << big.strategy;
    EXPECT_GT(big.old_acc_mean, small.old_acc_mean + 0.1) << big.strategy;
    EXPECT_LT(big.forgetting_mean, none.forgetting_mean - 0.2) << big.strategy;
  }
  // Identical on one thread: every run uses its own streams and one torch thread.
  c.threads = 1;
  const auto one = run_replay_experiment(train, test, c);
  for (size_t i = 0; i < r.runs.size(); ++i) EXPECT_EQ(r.runs[i].accuracy, one.runs[i].accuracy);
  EXPECT_THROW(parse_scenario("domain-il"), Error);
}

TEST(ReplayExperiment, ClassIncrementalBadCnnSettingsRaiseError) {
  const auto train = toy_images(20, 1), test = toy_images(20, 2);
  auto c = toy_replay_config();
  c.scenario = Scenario::class_il;
  c.buffer_sizes = {8};
  c.seeds = 1;
  // 4x4 images are too small for two valid 5x5 convolutions: Error before any run starts.
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);
  c.cnn_kernel = 1;  // 4 -> 4 -> 2 -> 2 -> 1: runs
  const auto ok = run_replay_experiment(train, test, c);
  EXPECT_EQ(ok.runs.size(), 2u);
  c.cnn_momentum = 1.0;
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);
  c.cnn_momentum = 0.0;
  // Divergence inside a worker thread comes back as an Error on the calling thread.
  c.cnn_learning_rate = 1e30;
  c.cnn_batch_size = 1;
  EXPECT_THROW(run_replay_experiment(train, test, c), Error);
}

}  // namespace
}  // namespace dmlkit::continual
