// `dmlkit cluster policies` (also `dmlkit cluster list`): lists the registered cluster policies,
// one per line; -v adds each one's summary, its declared knobs (type, default, help) and what jobs
// it schedules, from the registry table (cluster/registry.cpp).
#include <ostream>

#include "cluster/oasis/method.h"
#include "cluster/policy.h"
#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "dmlkit/python_plugin.h"

namespace dmlkit::app {

namespace {

std::vector<std::string> policy_notes(const cluster::PolicyEntry& e) {
  const auto& t = e.traits;
  std::string jobs = t.gpu_jobs && t.ps_jobs ? "GPU and parameter-server jobs"
                     : t.ps_jobs             ? "parameter-server jobs"
                                             : "GPU jobs";
  std::string line = "jobs: " + jobs;
  if (t.make_ps) line += " (parameter-server jobs by its PS version, " + t.ps_variant + ")";
  if (cluster::policy_registry().added(e.name)) return {line, "written in Python (--policy-file)"};
  return {line};
}

}  // namespace

void add_cluster_policies_command(CLI::App& cluster, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto& engine = ctx.make<std::string>();
  auto& format = ctx.make<std::string>();
  engine = "sim";
  auto* cmd = cluster.add_subcommand("policies", "List the registered cluster scheduling policies")->alias("list");
  cmd->add_flag("-v,--verbose", verbose, "Also print each policy's summary, knobs (--policy-param) and job kinds");
  auto& files = ctx.make<std::vector<std::string>>();
  cmd->add_option("--policy-file", files, std::string(kPolicyFileHelp) + "; listed with the built-in ones");
  cmd->add_option("--engine", engine,
                  "sim: the policies of the round-based simulator; oasis: the methods of the OASiS admission model "
                  "(experiments with engine: oasis, docs/oasis.md)")
      ->check(CLI::IsMember({"sim", "oasis"}))
      ->capture_default_str();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (engine == "oasis") {
        const auto notes = [](const cluster::oasis::OasisMethodEntry& e) {
          return std::vector<std::string>{e.traits.admission_control ? "admission: may reject a job at its arrival"
                                                                     : "admission: every job"};
        };
        if (format == "json")
          cluster::oasis::oasis_method_registry().print_json(ctx.out, {}, notes);
        else
          cluster::oasis::oasis_method_registry().print(ctx.out, verbose, {}, notes);
        return 0;
      }
      register_python_policies(files);
      if (format == "json")
        cluster::policy_registry().print_json(ctx.out, {}, policy_notes);
      else
        cluster::policy_registry().print(ctx.out, verbose, {}, policy_notes);
      return 0;
    };
  });
}

}  // namespace dmlkit::app
