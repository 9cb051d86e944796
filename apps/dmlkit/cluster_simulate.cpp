// `dmlkit cluster simulate`: one policy on one workload.
#include "dmlkit/cluster_run.h"

namespace dmlkit::app {

void add_cluster_simulate_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<ClusterRunOptions>();
  auto& policy = ctx.make<std::string>();
  policy = "fifo";
  auto* cmd = cluster.add_subcommand("simulate", "Simulate one scheduling policy on a workload");
  cmd->add_option("--policy", policy, "Policy name (see `dmlkit cluster policies`)")->capture_default_str();
  add_cluster_run_options(*cmd, o);
  cmd->callback([&] {
    o.policies = {policy};
    o.command = "cluster simulate";
    if (o.out.empty()) o.out = "out/cluster-simulate";
    ctx.run = [&] { return run_cluster_policies(o, ctx); };
    ctx.validate = [&] { validate_cluster_run(o); };
  });
}

}  // namespace dmlkit::app
