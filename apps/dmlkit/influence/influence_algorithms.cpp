// `dmlkit influence algorithms` (also `influence list`): the registry of influence algorithms.
#include <ostream>

#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "influence/algorithm.h"

namespace dmlkit::app {

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

}  // namespace dmlkit::app
