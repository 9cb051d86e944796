// The run entries of `dmlkit cluster train dl2 | harmony | harmony-seq2seq` (and of any caller
// that trains in-process): a spec per trainer that says everything a run needs and writes its own
// results.json inputs, `check(spec)` that refuses a bad spec before any work (core/error.h, naming
// the option), and `run(spec, progress)` that trains and returns the Results, the report's content
// and the CSV tables. The trainers write their models into the spec's folder as they go
// (checkpoints, best and last: a long run that stops keeps them, and `resume` continues from them);
// everything else (results.json, records.csv, summary.csv, the curves, report.html) is returned
// for the caller to write (apps/dmlkit/cluster/cluster_train*.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/train/dl2_train.h"
#include "cluster/train/harmony_seq2seq_train.h"
#include "cluster/train/harmony_train.h"
#include "core/html_report.h"
#include "core/results.h"

namespace dmlkit::cluster {

// progress(phase, step, total, detail): phases "sl" / "rl" (DL2), "samples" / "reward model" / "rl"
// (the Harmony designs). May be empty.
using TrainProgress = std::function<void(const std::string&, long, long, const std::string&)>;

// What every trainer's spec has: where the preset and the data come from, where the models go.
struct TrainSource {
  std::string experiment;       // --experiment: a preset name or YAML file (required; a simulator preset)
  std::string experiments_dir;  // --experiments-dir: folder of presets (default: default_experiments_dir())
  std::string data_dir;         // --data-dir: bundled data (default: default_data_dir())
  // --out: the folder the models (and the caller's output files) go to; "" = out/<design>-train-<preset>.
  std::string dir;
  int threads = 0;                   // --threads: validation (and sampling) threads; 0 = all cores
  std::vector<std::string> command;  // the command line, recorded in the model files' metadata
  TrainSource();                     // the folders' defaults
};

// ---------------------------------------------------------------- DL2 (dl2_train.h)
struct Dl2TrainSpec {
  TrainSource source;
  // Every knob of the trainer (dl2_train.h, defaults there). Its experiment, data_dir, command,
  // replay, explore.mode and val_threads are set from the fields of this spec by the run.
  Dl2TrainConfig knobs;
  std::string exploration = "code";  // --exploration: code | paper | none (job-aware exploration)
  bool replay = true;                // false: --no-replay (the latest slot's steps, ablation)
  // "--sl-steps" / "--sl-lr" when one was given: refused with an init_model (no warm-up runs).
  std::string sl_option_given;

  // The trainer's config: the preset loaded (throws Error if it is not a simulator preset) and
  // this spec's fields applied.
  Dl2TrainConfig config() const;
  // results.json inputs (experiment, teacher, net, ..., validation_seeds) of the config `c` of this spec.
  void write_inputs(Results& results, const Dl2TrainConfig& c) const;
};

struct Dl2TrainRun {
  Dl2TrainConfig config;
  Dl2TrainResult train;
  std::string dir;  // where the models are
  Results results{"cluster train dl2", "model"};
  HtmlReport report{""};
  std::string training_csv;  // training.csv
};

// The folder of the run's models (spec.source.dir or its default; loads the preset for its name).
std::string train_dir(const Dl2TrainSpec& spec);
// Refuses a spec that cannot train (every knob, the teacher, an init model, --resume without a
// checkpoint) before any work or output.
void check(const Dl2TrainSpec& spec);
Dl2TrainRun run(const Dl2TrainSpec& spec, const TrainProgress& progress);

// ---------------------------------------------------------------- Harmony (both designs)
// The fields the two Harmony designs' specs add to TrainSource (the deep-dive switches).
struct HarmonyRunSwitches {
  std::string interference;  // --interference: the samples' ground truth (none | contention | gavel; "" = the preset's)
  bool critic = true;        // false: --no-critic (baseline = the batch's mean target)
  bool exploration = true;   // false: --no-exploration
  bool replay = true;        // false: --no-replay (each update uses the latest interval's steps)
  bool standardize = true;   // false: --raw-advantages
};

struct HarmonyTrainSpec {
  TrainSource source;
  HarmonyRunSwitches switches;
  // Every knob (harmony_train.h, harmony_drl.h; defaults there). Its experiment, data_dir, command,
  // threads and the switches' fields are set from this spec by the run.
  HarmonyTrainConfig knobs;

  HarmonyTrainConfig config() const;
  void write_inputs(Results& results, const HarmonyTrainConfig& c) const;
};

struct HarmonyTrainRun {
  HarmonyTrainConfig config;
  HarmonyTrainResult train;
  std::string dir;
  Results results{"cluster train harmony", "model"};
  HtmlReport report{""};
  std::string training_csv, reward_model_csv;
};

std::string train_dir(const HarmonyTrainSpec& spec);
void check(const HarmonyTrainSpec& spec);
HarmonyTrainRun run(const HarmonyTrainSpec& spec, const TrainProgress& progress);

struct S2sTrainSpec {
  TrainSource source;
  HarmonyRunSwitches switches;
  S2sTrainConfig knobs;  // harmony_seq2seq_train.h, harmony_drl.h; set as HarmonyTrainSpec's

  S2sTrainConfig config() const;
  void write_inputs(Results& results, const S2sTrainConfig& c) const;
};

struct S2sTrainRun {
  S2sTrainConfig config;
  S2sTrainResult train;
  std::string dir;
  Results results{"cluster train harmony-seq2seq", "model"};
  HtmlReport report{""};
  std::string training_csv, reward_model_csv;
};

std::string train_dir(const S2sTrainSpec& spec);
void check(const S2sTrainSpec& spec);
S2sTrainRun run(const S2sTrainSpec& spec, const TrainProgress& progress);

// The report's "DRL" line: "N updates over I intervals of E episodes" (singular where 1).
std::string drl_summary_line(long rl_steps, const HarmonyDrlResult& r);

}  // namespace dmlkit::cluster
