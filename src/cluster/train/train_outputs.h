// What the trainers' run entries (run.h) share to build their outputs: the preset a trainer
// accepts, the default model folder, the validation records, and the two Harmony designs' common
// inputs, derived values, CSV tables and report charts.
#pragma once
#include <cstdint>
#include <string>

#include "cluster/train/harmony_drl.h"
#include "cluster/train/run.h"
#include "cluster/workload/experiment.h"
#include "core/html_report.h"
#include "core/results.h"

namespace dmlkit::cluster {

// The preset of `s` (throws Error unless it is a simulator preset: "... cannot train <design>").
Experiment load_train_experiment(const TrainSource& s, const std::string& design);
// s.dir, or out/<prefix>-train-<experiment_name>.
std::string default_train_dir(const TrainSource& s, const std::string& prefix, const std::string& experiment_name);

// A record of a policy's validation JCT (`file`: its model, may be empty).
void add_validation_record(Results& res, uint64_t seed, const std::string& name, double jct, const std::string& file,
                           long step);

// The Harmony designs' config from a spec's source and switches (the preset loaded).
void apply_harmony_source(const TrainSource& source, const HarmonyRunSwitches& switches, const std::string& design,
                          HarmonyDrlConfig& c);
// results.json inputs of the knobs both designs share (HarmonyDrlConfig): experiment, interference,
// seed, critic ... defer, epsilon_*, train/val traces, rm_traces ... rm_holdout.
void put_harmony_drl_inputs(Results& res, const HarmonyDrlConfig& c);
// derived: the reward model's hold-out and train errors, intervals, episodes, explored fraction;
// imitation_teacher, _samples, _accuracy, _chance with imitation.
void put_harmony_drl_derived(Results& res, const HarmonyDrlResult& r);
// training.csv (step, losses, entropy, epsilon, val_avg_jct_s, model_avg_jct_s).
std::string harmony_training_csv(const HarmonyDrlResult& r);
// reward_model.csv (epoch, holdout_mse).
std::string harmony_reward_model_csv(const HarmonyDrlResult& r);
// The report's charts: reward model hold-out MSE (when it was fitted in this run), validation JCT
// (`name`'s from start_step, and the baselines'), DRL losses.
void add_harmony_charts(HtmlReport& page, const HarmonyDrlResult& r, const std::string& name, long start_step);

}  // namespace dmlkit::cluster
