// `dmlkit cluster simulate`: one policy on one workload.
#include "dmlkit/cluster/cluster_run.h"
#include "dmlkit/python_plugin.h"
#include "dmlkit/run_output.h"
#include "dmlkit/trace_output.h"
#include "core/error.h"

namespace dmlkit::app {

void add_cluster_simulate_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<ClusterCliOptions>();
  auto& policy = ctx.make<std::string>();
  policy = "fifo";
  auto* cmd = cluster.add_subcommand("simulate", "Simulate one scheduling policy on a workload");
  cmd->add_option("--policy", policy, "Policy name (see `dmlkit cluster policies`)")->capture_default_str();
  add_cluster_run_options(*cmd, o);
  add_trace_option(*cmd, o.trace, "jobs on servers over time: each server a process, each GPU a thread");
  cmd->callback([&, cmd] {
    o.spec.policies = {policy};
    o.spec.command = "cluster simulate";
    if (o.out.empty()) o.out = "out/cluster-simulate";
    // Python policies (--policy-file) are registered first; `cluster simulate` runs one policy.
    auto add_python = [&, cmd] {
      if (o.policy_files.empty()) return;
      const auto names = register_python_policies(o.policy_files);
      if (cmd->count("--policy") == 0) {
        if (names.size() != 1) throw Error("--policy-file: `cluster simulate` runs one policy; name it with --policy");
        o.spec.policies = names;
      }
    };
    ctx.run = [&, add_python] {
      add_python();
      return run_cluster_policies(o, ctx);
    };
    ctx.validate = [&, add_python] {
      add_python();
      validate_cluster_run(o);
    };
  });
}

}  // namespace dmlkit::app
