// What `cluster train harmony` and `cluster train harmony-seq2seq` share (the two Harmony designs
// train by the same recipe, cluster/train/harmony_drl.h): the options of the common knobs (in
// groups, so that each command keeps its order of --help), applying them to the config, the
// progress bars, and the output folder's common files (results.json, records.csv, summary.csv,
// training.csv, reward_model.csv) and report charts. `cluster train` commands' --experiment, --out
// and --format: add_train_experiment_options.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cluster/train/harmony_drl.h"
#include "core/html_report.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

// The options of a `cluster train` command that are not a config's knob.
struct TrainCliOptions {
  std::string experiment;
  std::string experiments_dir;
  std::string data_dir;
  std::string out, format = "table";
  std::string interference;
  bool no_critic = false, no_exploration = false, no_replay = false, raw_advantages = false;
  int threads = 0;
  TrainCliOptions();  // the folders' defaults
};

// --experiment (required; `example` a preset name), --experiments-dir, --data-dir, --out, --format.
void add_train_experiment_options(CLI::App& cmd, TrainCliOptions& o, const std::string& example);

// --interference, --seed.
void add_harmony_sampling_head(CLI::App& cmd, TrainCliOptions& o, cluster::HarmonyDrlConfig& c);
// --no-critic, --no-exploration, --no-replay, --raw-advantages.
void add_harmony_deep_dive_flags(CLI::App& cmd, TrainCliOptions& o);
// --rl-steps ... --checkpoint-every (the DRL and validation knobs).
void add_harmony_drl_options(CLI::App& cmd, cluster::HarmonyDrlConfig& c, const std::string& rl_steps_help,
                             const std::string& entropy_help);
// --imitate, --il-steps, --il-lr, --il-traces ([A] the imitation warm start, harmony_imitation.h).
void add_harmony_imitation_options(CLI::App& cmd, cluster::HarmonyDrlConfig& c);
// --rm-traces, --rm-random.
void add_harmony_rm_sampling_options(CLI::App& cmd, cluster::HarmonyDrlConfig& c);
// --rm-epochs, --rm-holdout, --rm-lr, --rm-policies; then --threads.
void add_harmony_rm_fit_options(CLI::App& cmd, cluster::HarmonyDrlConfig& c);
void add_train_threads_option(CLI::App& cmd, TrainCliOptions& o);

// Loads the experiment (a simulator preset: "an OASiS-model preset cannot train <design>") and
// applies the command-line options to c.
void apply_harmony_cli(const TrainCliOptions& o, const std::vector<std::string>& command, const std::string& design,
                       cluster::HarmonyDrlConfig& c);

// The three bars of a training ("<prefix> samples", "... reward model", "... DRL"); progress() is
// the trainer's callback.
class HarmonyTrainBars {
 public:
  HarmonyTrainBars(const std::string& prefix, int rm_epochs, long rl_steps);
  std::function<void(const std::string&, long, long, const std::string&)> progress();
  void finish();

 private:
  ProgressBar samples_, rm_, rl_;
};

// results.json inputs of the knobs both designs share (HarmonyDrlConfig): experiment, interference,
// seed, critic ... defer, epsilon_*, train/val traces, rm_traces ... rm_holdout.
void put_harmony_drl_inputs(Results& res, const cluster::HarmonyDrlConfig& c);
// A record of a policy's validation JCT (`file`: its model, may be empty).
void add_validation_record(Results& res, uint64_t seed, const std::string& name, double jct, const std::string& file,
                           long step);
// derived: the reward model's hold-out and train errors, intervals, episodes, explored fraction;
// imitation_teacher, _samples, _accuracy, _chance with imitation.
void put_harmony_drl_derived(Results& res, const cluster::HarmonyDrlResult& r);
// results.json, records.csv and summary.csv in dir.
void write_results_files(const std::string& dir, const Results& res);
// results.json, records.csv, summary.csv, training.csv (with model_avg_jct_s: `model_jct_column`)
// and reward_model.csv in dir.
void write_harmony_tables(const std::string& dir, const Results& res, const cluster::HarmonyDrlResult& r,
                          bool model_jct_column);
// The report's "DRL" line: "N updates over I intervals of E episodes" (singular where 1).
std::string drl_summary_line(long rl_steps, const cluster::HarmonyDrlResult& r);
// The report's charts: reward model hold-out MSE (when it was fitted in this run), validation JCT (`name`'s from start_step, and
// the baselines'), DRL losses.
void add_harmony_charts(HtmlReport& page, const cluster::HarmonyDrlResult& r, const std::string& name,
                        long start_step);
// With --format table: `head`, the reward model's error over `rm_count`, wall times and `table`.
void print_harmony_summary(Context& ctx, const std::string& format, const Results& res, const std::string& head,
                           const std::string& rm_count, const cluster::HarmonyDrlResult& r, const TextTable& table);

}  // namespace dmlkit::app
