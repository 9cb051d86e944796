// `dmlkit ps ...`: parameter-server load distribution under stragglers on the iteration simulator
// (docs/psld.md): `ps list` shows the assignment policies, `ps compare` fills ps::CompareSpec
// (src/ps/compare.h), runs it and writes results.json, CSV tables and report.html.
#include <ostream>

#include "core/knobs.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "ps/compare.h"
#include "ps/policy.h"

namespace dmlkit::app {
namespace {

struct PsCompareCli {
  ps::CompareSpec spec;
  std::vector<std::string> policy_params;  // --policy-param key=value
  OutputOptions output;
};

void ps_add_list(CLI::App& ps, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd = ps.add_subcommand("list", "List the PS assignment policies")->alias("policies");
  cmd->add_flag("-v,--verbose", verbose, "Also print each policy's summary and knobs (--policy-param)");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (format == "json")
        ps::policy_registry().print_json(ctx.out);
      else
        ps::policy_registry().print(ctx.out, verbose);
      return 0;
    };
  });
}

void ps_check_compare(PsCompareCli& c) {
  c.spec.policy_params.clear();
  add_knob_values(c.spec.policy_params, c.policy_params, "--policy-param");
  (void)ps::check(c.spec);
}

void ps_add_compare(CLI::App& ps, Context& ctx) {
  auto& c = ctx.make<PsCompareCli>();
  auto& o = c.spec;
  auto* cmd = ps.add_subcommand("compare", "Compare PS assignment policies under stragglers");
  cmd->add_option("--policies", o.policies, "Comma-separated policies (see `dmlkit ps list`)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--policy-param", c.policy_params, "Policy knob key=value (repeatable), e.g. psld.ewma_alpha=0.5");
  cmd->add_option("--stragglers", o.stragglers, "Straggler scenario: none, persistent, rotating, burst, or a CSV file")
      ->capture_default_str();
  cmd->add_option("--server-GBps", o.server_GBps,
                  "Aggregation throughput of a healthy server CPU, GB/s (0 = CPU not simulated)")
      ->capture_default_str();
  add_training_options(*cmd, o, o.seed);
  add_output_options(*cmd, c.output.out, c.output.format);
  cmd->callback([&] {
    if (c.output.out.empty()) c.output.out = "out/ps-compare";
    ctx.run = [&] {
      ps_check_compare(c);
      OutputDir dir(c.output.out);
      ProgressBar bar("ps compare", static_cast<double>(c.spec.policies.size()));
      const comm::RunOutput run = ps::run(c.spec, &bar);
      bar.finish();
      return write_and_print(run, dir, c.output, ctx);
    };
    ctx.validate = [&] { ps_check_compare(c); };
  });
}

}  // namespace

void add_ps_commands(CLI::App& app, Context& ctx) {
  auto* ps = app.add_subcommand("ps", "Parameter-server load distribution under stragglers (SimGrid)");
  ps->require_subcommand(1);
  ps_add_list(*ps, ctx);
  ps_add_compare(*ps, ctx);
}

}  // namespace dmlkit::app
