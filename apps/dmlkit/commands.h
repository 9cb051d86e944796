// Registration of subcommands on the CLI11 app. Each subcommand family has one file.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>

namespace dmlkit::app {

struct Context {
  std::ostream& out;
  std::ostream& err;
  // Set by the chosen subcommand's callback; run after parsing so errors map to exit codes.
  std::function<int()> run;
};

void add_cluster_commands(CLI::App& app, Context& ctx);

}  // namespace dmlkit::app
