// Options shared by the two real-image commands (`continual replay`, `continual sign-angle`): the
// data set, the network and its training, seeds and threads, the output folder and what is printed.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "continual/image_training.h"
#include "continual/run.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

// Adds --dataset and --data-dir (first) ...
void add_image_data_options(CLI::App& cmd, continual::ImageData& data);
// ... and, after the command's own options, the training options, --backend, --out and --format.
void add_image_training_options(CLI::App& cmd, continual::ImageTrainingConfig& c, continual::ImageData& data,
                                std::string& out, std::string& format);
// Runs a continual spec: check, run (with a progress bar), write `out`, print by `format`.
template <class Spec>
int run_continual(const Spec& spec, const char* label, const std::string& out, const std::string& format, Context& ctx);

}  // namespace dmlkit::app
