// `dmlkit cluster policies`: lists the registered cluster policies, one per line.
#include <ostream>

#include "cluster/policy.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

void add_cluster_policies_command(CLI::App& cluster, Context& ctx) {
  auto* cmd = cluster.add_subcommand("policies", "List the registered cluster scheduling policies");
  auto& verbose = ctx.make<bool>();
  cmd->add_flag("-v,--verbose", verbose, "Also print each policy's one-line summary");
  cmd->callback([&] {
    ctx.run = [&] {
      for (const auto& p : cluster::policy_registry()) {
        ctx.out << p.name;
        if (verbose) ctx.out << "\t" << p.summary;
        ctx.out << "\n";
      }
      return 0;
    };
  });
}

}  // namespace dmlkit::app
