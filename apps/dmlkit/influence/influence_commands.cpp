// `dmlkit influence ...`: online influence maximization on a changing social network.
#include <ostream>

#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "influence/algorithm.h"

namespace dmlkit::app {

void add_influence_run_command(CLI::App& influence, Context& ctx);

namespace {

// `influence algorithms` (also `influence list`); -v: summaries and knobs (options) from the registry.
void add_influence_algorithms_command(CLI::App& influence, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd =
      influence.add_subcommand("algorithms", "List the registered influence-maximization algorithms")->alias("list");
  cmd->add_flag("-v,--verbose", verbose, "Also print each algorithm's summary and knobs (options)");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (format == "json")
        influence::algorithm_registry().print_json(ctx.out);
      else
        influence::algorithm_registry().print(ctx.out, verbose);
      return 0;
    };
  });
}

}  // namespace

void add_influence_commands(CLI::App& app, Context& ctx) {
  auto* influence = app.add_subcommand("influence", "Online influence maximization on a changing social network");
  influence->require_subcommand(1);
  add_influence_algorithms_command(*influence, ctx);
  add_influence_run_command(*influence, ctx);
}

}  // namespace dmlkit::app
