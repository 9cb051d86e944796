// `dmlkit influence ...`: online influence maximization on a changing social network.
#include "dmlkit/commands.h"

namespace dmlkit::app {

void add_influence_algorithms_command(CLI::App& influence, Context& ctx);  // influence_algorithms.cpp
void add_influence_run_command(CLI::App& influence, Context& ctx);         // influence_run.cpp

void add_influence_commands(CLI::App& app, Context& ctx) {
  auto* influence = app.add_subcommand("influence", "Online influence maximization on a changing social network");
  influence->require_subcommand(1);
  add_influence_algorithms_command(*influence, ctx);
  add_influence_run_command(*influence, ctx);
}

}  // namespace dmlkit::app
