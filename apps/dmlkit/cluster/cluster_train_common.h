// What the `cluster train` commands share: --experiment, --out and --format of every trainer, the
// options of the two Harmony designs' common knobs (in groups, so that each command keeps its order
// of --help), the progress bars, and writing the output folder's files and printing the summary of
// a run entry's result (cluster/train/run.h).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cluster/train/run.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

// The options of a `cluster train` command that are not a spec's field (the deep-dive switches
// are given negated: --no-critic, ...).
struct TrainCliOptions {
  std::string format = "table";
  bool no_critic = false, no_exploration = false, no_replay = false, raw_advantages = false;
  // The Harmony designs' switches from the negated flags (and --interference, kept in `interference`).
  cluster::HarmonyRunSwitches switches() const;
  std::string interference;
};

// --experiment (required; `example` a preset name), --experiments-dir, --data-dir, --out, --format.
void add_train_experiment_options(CLI::App& cmd, cluster::TrainSource& s, TrainCliOptions& o,
                                  const std::string& example);

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
void add_train_threads_option(CLI::App& cmd, cluster::TrainSource& s);

// The three bars of a training ("<prefix> samples", "... reward model", "... DRL"); progress() is
// the trainer's callback.
class HarmonyTrainBars {
 public:
  HarmonyTrainBars(const std::string& prefix, int rm_epochs, long rl_steps);
  cluster::TrainProgress progress();
  void finish();

 private:
  ProgressBar samples_, rm_, rl_;
};

// results.json, records.csv and summary.csv in dir.
void write_results_files(const std::string& dir, const Results& res);
// Writes `content` as dir/name.
void write_in(const std::string& dir, const std::string& name, const std::string& content);
// With --format table: `head`, the reward model's error over `rm_count`, wall times and `table`.
void print_harmony_summary(Context& ctx, const std::string& format, const Results& res, const std::string& head,
                           const std::string& rm_count, const cluster::HarmonyDrlResult& r, const TextTable& table);

}  // namespace dmlkit::app
