#include "dmlkit/cli.h"

#include <CLI/CLI.hpp>
#include <ostream>

#include "core/error.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"dmlkit: the systems side of distributed machine learning"};
  app.set_version_flag("--version", std::string("dmlkit ") + DMLKIT_VERSION);
  app.require_subcommand(1);
  Context ctx{out, err, {}, {}};
  add_cluster_commands(app, ctx);
  add_comm_commands(app, ctx);
  add_influence_commands(app, ctx);
  add_continual_commands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << "dmlkit " << DMLKIT_VERSION << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // Help for a subcommand is raised from inside it; print the help of the one that asked.
    if (e.get_exit_code() == 0) {
      out << e.what();
      return 0;
    }
    err << "dmlkit: " << e.what() << "\n";
    return 2;
  }
  try {
    return ctx.run ? ctx.run() : 0;
  } catch (const Error& e) {
    err << "dmlkit: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "dmlkit: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace dmlkit::app
