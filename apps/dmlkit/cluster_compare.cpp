// `dmlkit cluster compare`: several policies on the same workload, one table, one report.
#include "dmlkit/cluster_run.h"

namespace dmlkit::app {

void add_cluster_compare_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<ClusterRunOptions>();
  auto& policies = ctx.make<std::vector<std::string>>();
  policies = {"fifo", "srtf", "drf", "tetris", "tiresias"};
  auto* cmd = cluster.add_subcommand("compare", "Compare scheduling policies on the same workload");
  cmd->add_option("--policies", policies, "Comma-separated policy names")
      ->delimiter(',')
      ->capture_default_str();
  add_cluster_run_options(*cmd, o);
  cmd->callback([&] {
    o.policies = policies;
    o.command = "cluster compare";
    if (o.out.empty()) o.out = "out/cluster-compare";
    ctx.run = [&] { return run_cluster_policies(o, ctx); };
  });
}

}  // namespace dmlkit::app
