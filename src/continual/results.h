// Continual-learning experiments as core Results (docs/results-schema.md, "continual"): one record
// per run (variant or strategy x configuration x seed index), the configuration (angle_deg,
// buffer_size, old/new class and replay size) in the record's params, so that the summary over
// seeds of each configuration is core's (mean, sd, min, max). Results over configurations
// (critical angles, angles between tasks) go into "derived".
#pragma once
#include "continual/angle_sweep.h"
#include "continual/replay_experiment.h"
#include "continual/sign_task_experiment.h"
#include "core/results.h"

namespace dmlkit::continual {

// Records (variant, angle_deg, seed index): task1_error_before, task1_error, task2_error,
// forgetting (task1_error - task1_error_before), diverged; derived task1 and variants.
void add_angle_sweep_records(Results& results, const AngleSweepConfig& config, const AngleSweepResult& result);
// Records (strategy, buffer_size, seed index): old_task_accuracy, average_forgetting,
// last_task_accuracy; derived task_angles_deg.
void add_replay_records(Results& results, const ReplayExperimentResult& result);
// Records ("OLD-NEW", old_class, new_class, replay_size, seed index): old_acc_before, old_acc_after,
// new_acc; derived pairs with their measured angle.
void add_sign_task_records(Results& results, const SignTaskResult& result);

}  // namespace dmlkit::continual
