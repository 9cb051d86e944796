// `dmlkit cluster ...`: the cluster-scheduling subcommands.
#include "dmlkit/commands.h"

namespace dmlkit::app {

void add_cluster_policies_command(CLI::App& cluster, Context& ctx);
void add_cluster_simulate_command(CLI::App& cluster, Context& ctx);
void add_cluster_compare_command(CLI::App& cluster, Context& ctx);
void add_cluster_experiments_command(CLI::App& cluster, Context& ctx);
void add_cluster_serve_command(CLI::App& cluster, Context& ctx);  // live mode (apps/dmlkit/live_*.cpp)
void add_cluster_replay_command(CLI::App& cluster, Context& ctx);
void add_cluster_status_command(CLI::App& cluster, Context& ctx);
void add_cluster_train_command(CLI::App& cluster, Context& ctx);  // cluster_train.cpp

void add_cluster_commands(CLI::App& app, Context& ctx) {
  auto* cluster = app.add_subcommand("cluster", "Job-level scheduling of a GPU cluster (simulation)");
  cluster->require_subcommand(1);
  add_cluster_policies_command(*cluster, ctx);
  add_cluster_simulate_command(*cluster, ctx);
  add_cluster_compare_command(*cluster, ctx);
  add_cluster_experiments_command(*cluster, ctx);
  add_cluster_serve_command(*cluster, ctx);
  add_cluster_replay_command(*cluster, ctx);
  add_cluster_status_command(*cluster, ctx);
  add_cluster_train_command(*cluster, ctx);
}

}  // namespace dmlkit::app
