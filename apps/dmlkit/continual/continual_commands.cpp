// `dmlkit continual ...`: continual-learning experiments of "Angle Matters" (Wan et al., ICML 2025).
#include "dmlkit/commands.h"

namespace dmlkit::app {

void add_continual_sweep_command(CLI::App& continual, Context& ctx);
void add_continual_replay_command(CLI::App& continual, Context& ctx);
void add_continual_strategies_command(CLI::App& continual, Context& ctx);
void add_continual_sign_angle_command(CLI::App& continual, Context& ctx);

void add_continual_commands(CLI::App& app, Context& ctx) {
  auto* continual = app.add_subcommand("continual", "Continual learning: angle between tasks, replay sampling");
  continual->require_subcommand(1);
  add_continual_sweep_command(*continual, ctx);
  add_continual_replay_command(*continual, ctx);
  add_continual_sign_angle_command(*continual, ctx);
  add_continual_strategies_command(*continual, ctx);
}

}  // namespace dmlkit::app
