// Registration of subcommands on the CLI11 app. Each subcommand family has one file.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <vector>

namespace dmlkit::app {

struct Context {
  std::ostream& out;
  std::ostream& err;
  // Set by the chosen subcommand's callback; run after parsing so errors map to exit codes.
  std::function<int()> run;
  // Optional, set next to `run` by commands that can: the up-front checks of `run` (names, knobs,
  // files) without the work; what `dmlkit sweep` uses to check every cell before any runs
  // (check_cli in cli.h). Throws Error like `run` would.
  std::function<void()> validate;
  // Set by a command that checks its own --out folder (a resumable sweep folder holds cells/ and
  // state/, which the generic check would refuse).
  bool own_output_check = false;
  // Storage for option values that lives as long as this parse (no static state, so the CLI can
  // run many times in one process, as the tests do).
  std::vector<std::shared_ptr<void>> storage;
  template <typename T>
  T& make() {
    auto p = std::make_shared<T>();
    storage.push_back(p);
    return *p;
  }
};

void add_cluster_commands(CLI::App& app, Context& ctx);
void add_comm_commands(CLI::App& app, Context& ctx);
void add_ps_commands(CLI::App& app, Context& ctx);
void add_gnn_commands(CLI::App& app, Context& ctx);
void add_influence_commands(CLI::App& app, Context& ctx);
void add_continual_commands(CLI::App& app, Context& ctx);
void add_football_commands(CLI::App& app, Context& ctx);
void add_sweep_commands(CLI::App& app, Context& ctx);
void add_tools_commands(CLI::App& app, Context& ctx);  // diff, generate

}  // namespace dmlkit::app
