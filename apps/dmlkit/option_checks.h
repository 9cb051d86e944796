// Range checks for numeric command-line options, so a bad value is one line and exit status 2
// before any work. Every unsigned option also rejects a leading '-' (CLI11 would wrap -1 around to
// 18446744073709551615); run_cli adds that check to all of them (reject_negative_unsigned).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace dmlkit::app {

// value >= lo (e.g. counts: at_least(1); durations and rates that may be zero: at_least(0)).
CLI::Validator at_least(double lo);
// value > lo (durations, rates, sizes that must be positive: above(0)).
CLI::Validator above(double lo);
// Adds "must not be negative" to every unsigned (CLI11 type UINT) option of `app` and of all its
// subcommands.
void reject_negative_unsigned(CLI::App& app);
// --runs N, the number of independent runs (seed indices 0..N-1 split from --seed), and a hidden
// --seeds that says so: in dmlkit --seeds is a list of seeds (`cluster compare --experiment`).
void add_runs_option(CLI::App& cmd, int& runs, const std::string& help);
// Throws Error("--<long name>: <why>") for the first option of `cmd` given on the
// command line whose long name is not in `allowed`: for modes in which the other options would
// silently do nothing.
void reject_options_given(const CLI::App& cmd, const std::vector<std::string>& allowed, const std::string& why);
// The words of `head` followed by every option of `cmd` given on the command line, as argv words
// "--name", "value" (values of a list joined by commas; flags without a value): what a trained
// model records, shell-quoted, as the command that produced it (`cluster train dl2|harmony|
// harmony-seq2seq`).
std::vector<std::string> given_options(const CLI::App& cmd, const std::string& head);

}  // namespace dmlkit::app
