// The "+class vs -class" angle study of "Angle Matters" (spec B.8, real-world/cl_mnist_angle.py),
// on Fashion-MNIST: a task is one class c whose normalised images x keep label +1 for one half
// and become -x with label -1 for the other half, so the task signal is the class-mean image and
// the angle between two tasks is the angle between their class means (reported as measured).
// For each pair old -> new: train the ReLU^q head on the old task, then on all new-task training
// data plus r old-task training samples (the first r of the old task's shuffled training set), for
// each replay size r; the metric is the old task's test accuracy after the new task.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "continual/idx_reader.h"
#include "continual/image_training.h"

namespace dmlkit::continual {

struct SignTaskConfig : ImageTrainingConfig {
  SignTaskConfig() {
    train_per_class = 6000;
    epochs = 3;  // per task (the code: 10); filters_per_class stays 64 (the code: 256)
  }
  std::vector<std::pair<int, int>> pairs{{0, 1}, {4, 9}, {5, 8}, {2, 6}};  // the code's digit pairs
  std::vector<int> replay_sizes{0, 1, 51, 101, 201, 401};
  // [A] Give the new task the opposite label convention (+x labelled -1): its signal becomes
  // minus its class mean, so the angle between the tasks becomes 180 degrees minus the class-mean
  // angle. Class means of non-negative images are always at an acute angle, so this is how obtuse
  // task pairs arise from real images.
  bool flip_new_task = false;
  void validate() const;
};

struct SignTaskRun {
  int old_class = 0, new_class = 0, replay_size = 0, seed_index = 0;
  double old_accuracy_before = 0;  // old-task test accuracy after the old task
  double old_accuracy_after = 0;   // after the new task
  double new_accuracy = 0;
};

struct SignTaskPoint {
  int old_class = 0, new_class = 0, replay_size = 0, runs = 0;
  double angle_deg = 0;  // measured angle between the two task signals (signed class means)
  double old_acc_mean = 0, old_acc_std = 0, new_acc_mean = 0, old_acc_before_mean = 0;
};

struct SignTaskResult {
  std::vector<SignTaskRun> runs;      // ordered by (pair, seed, replay size)
  std::vector<SignTaskPoint> points;  // ordered by (pair, replay size)
};

// `progress(done, total)` is called as (pair, seed) runs finish, serialised by a mutex; display only.
SignTaskResult run_sign_task_experiment(const ImageSet& train, const ImageSet& test, const SignTaskConfig& config,
                                        const std::function<void(size_t done, size_t total)>& progress = {});

}  // namespace dmlkit::continual
