// Options and output shared by the two real-image commands (`continual replay`,
// `continual sign-angle`): the data set, the network and its training, seeds and threads, the
// output folder and what is printed.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "continual/image_training.h"
#include "core/output_dir.h"
#include "core/table.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

struct ImageRunOptions {
  std::string dataset = "fashion-mnist";
  std::string data_dir;  // empty: the data set's default folder
  std::string out;
  std::string format = "table";
  std::string backend = "torch";  // --backend of the ReLU^q head
};

// Adds --dataset and --data-dir (first) ...
void add_image_data_options(CLI::App& cmd, ImageRunOptions& o);
// ... and, after the command's own options, the training options, --out and --format.
void add_image_training_options(CLI::App& cmd, continual::ImageTrainingConfig& c, ImageRunOptions& o);
// Parses "A-B" class pairs (e.g. "0-1,4-9" split at commas); Error(field) naming the bad one.
std::vector<std::pair<int, int>> parse_class_pairs(const std::vector<std::string>& texts, const char* field);
// Commits `out` and prints `json`, `table` as CSV, or `table` rendered, by --format.
void finish_image_run(OutputDir& out, Context& ctx, const ImageRunOptions& o, const std::string& json,
                      const TextTable& table);

}  // namespace dmlkit::app
