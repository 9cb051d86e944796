// Replay sampling study on real images (spec B.8, adapted to Fashion-MNIST): the classes are
// split into sequential binary tasks (2t vs 2t+1, class 2t labelled +1, class 2t+1 labelled -1);
// the "two linear maps + ReLU^3" head (a PatchCnn with one patch: m filters per class, output
// scaled by 1/m) is trained on each task in turn with mini-batch SGD on the task's data plus the
// replay buffer. At each task end the buffer is refilled as Mammoth's fill_buffer does: with
// k = buffer_size / classes seen, every old class keeps its first k buffered samples and the new
// task's classes get k each, chosen by the replay strategy from the task's training samples in
// pixel space (the official MNIST sampling study also works in pixel space).
// Metrics after the last task: accuracy on each old task, their mean ("old-task accuracy"), and
// average forgetting = mean over old tasks of (best accuracy after any task - final accuracy).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "continual/idx_reader.h"
#include "continual/image_training.h"

namespace dmlkit::continual {

// task-il: each task is its own binary problem (2t -> +1, 2t+1 -> -1) for the shared ReLU^q head
// above (the paper's sequential two-class tasks). class-il: one K = 2*tasks-way head (m filters
// per class, softmax cross-entropy) learns all classes; a test image counts as right when the
// argmax over the classes seen so far is its class ([A] unseen classes are masked out).
enum class Scenario { task_il, class_il };
Scenario parse_scenario(const std::string& name);  // "task-il" or "class-il"; Error(field "scenario")

struct ReplayExperimentConfig : ImageTrainingConfig {
  Scenario scenario = Scenario::task_il;
  int tasks = 5;                 // binary tasks (2t vs 2t+1), t = 0..tasks-1 (at most 5 for 10 classes)
  std::vector<std::string> strategies{"random", "reservoir", "class-balanced", "herding",
                                      "small-angle", "mid-angle", "large-angle", "angle-mid-stream"};
  std::vector<size_t> buffer_sizes{20, 100, 500};
  void validate() const;
};

struct ReplayRun {
  std::string strategy;
  size_t buffer_size = 0;
  int seed_index = 0;
  std::vector<std::vector<double>> accuracy;  // accuracy[after task i][on task j], j <= i
  double old_task_accuracy = 0;               // mean final accuracy on tasks 0..T-2
  double average_forgetting = 0;
  double last_task_accuracy = 0;
};

struct ReplayPoint {
  std::string strategy;
  size_t buffer_size = 0;
  int runs = 0;
  double old_acc_mean = 0, old_acc_std = 0;
  double forgetting_mean = 0, forgetting_std = 0;
  double last_acc_mean = 0;
};

struct ReplayExperimentResult {
  std::vector<ReplayRun> runs;      // ordered by (strategy, buffer, seed)
  std::vector<ReplayPoint> points;  // ordered by (strategy, buffer)
  // Angle (degrees) between consecutive tasks' signed class-mean directions: the angle between
  // mean(x | +1) - mean(x | -1) of task t and of task t+1, on normalised training pixels.
  std::vector<double> task_angles_deg;
};

ReplayExperimentResult run_replay_experiment(const ImageSet& train, const ImageSet& test,
                                             const ReplayExperimentConfig& config);

}  // namespace dmlkit::continual
