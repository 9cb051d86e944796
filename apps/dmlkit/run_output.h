// The last step every command that writes an output folder shares: commit the folder and say
// where it is, in the same words for every command.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "core/output_dir.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

// --out (the output folder: results.json, CSV tables, report.html) and --format (what is printed:
// table, json or csv), the options every command that writes an output folder takes.
void add_output_options(CLI::App& cmd, std::string& out, std::string& format);
// --format table|json of a list command (`cluster policies`, `comm schedulers`, ...): json prints
// what -v prints as one JSON array.
void add_list_format_option(CLI::App& cmd, std::string& format);
// Moves the staged output folder into place; returns its absolute path.
std::string commit_output(OutputDir& out);
// After the printed summary: with --format table, where results.json and report.html are (on
// stdout); with json or csv, whose stdout must stay machine-readable, the folder on stderr.
void print_output_location(Context& ctx, const std::string& format, const std::string& path);

}  // namespace dmlkit::app
