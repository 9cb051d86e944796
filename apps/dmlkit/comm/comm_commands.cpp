// `dmlkit comm ...`: iteration-level simulation of communication scheduling (docs/comm.md).
#include <ostream>

#include "comm/scheduler.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

void add_comm_tune_command(CLI::App& comm, Context& ctx);  // comm_tune.cpp

namespace {

// `comm schedulers` (also `comm list`); -v: architectures, summary and knobs from the registry.
void add_schedulers(CLI::App& comm, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd = comm.add_subcommand("schedulers", "List the communication schedulers")->alias("list");
  cmd->add_flag("-v,--verbose", verbose, "Also print each scheduler's architectures, summary and knobs (options)");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      const auto architectures = [](const comm::SchedulerEntry& e) -> std::string {
        const auto& t = e.traits;
        return t.ps && t.allreduce ? "ps,allreduce" : t.ps ? "ps" : "allreduce";
      };
      if (format == "json")
        comm::scheduler_registry().print_json(ctx.out, architectures, {}, "architectures");
      else
        comm::scheduler_registry().print(ctx.out, verbose, architectures);
      return 0;
    };
  });
}

void add_simulate(CLI::App& comm, Context& ctx) {
  auto& o = ctx.make<CommRunOptions>();
  auto& scheduler = ctx.make<std::string>();
  scheduler = "bytescheduler";
  auto* cmd = comm.add_subcommand("simulate", "Simulate training iterations with one scheduler");
  cmd->add_option("--scheduler", scheduler, "Scheduler (see `dmlkit comm schedulers`)")->capture_default_str();
  add_comm_run_options(*cmd, o, true);
  cmd->callback([&] {
    o.schedulers = {scheduler};
    o.command = "comm simulate";
    if (o.out.empty()) o.out = "out/comm-simulate";
    ctx.run = [&] { return run_comm_schedulers(o, ctx); };
    ctx.validate = [&] { (void)validate_comm_run(o); };
  });
}

void add_compare(CLI::App& comm, Context& ctx) {
  auto& o = ctx.make<CommRunOptions>();
  auto* cmd = comm.add_subcommand("compare", "Compare schedulers on the same model and cluster");
  cmd->add_option("--schedulers", o.schedulers, "Comma-separated schedulers (default: all that support --arch)")
      ->delimiter(',');
  add_comm_run_options(*cmd, o, true);
  cmd->callback([&] {
    o.command = "comm compare";
    if (o.out.empty()) o.out = "out/comm-compare";
    if (o.schedulers.empty())
      for (const auto& s : comm::scheduler_registry().entries())
        if ((o.arch == "ps" && s.traits.ps) || (o.arch != "ps" && s.traits.allreduce)) o.schedulers.push_back(s.name);
    ctx.run = [&] { return run_comm_schedulers(o, ctx); };
    ctx.validate = [&] { (void)validate_comm_run(o); };
  });
}

}  // namespace

void add_comm_commands(CLI::App& app, Context& ctx) {
  auto* comm = app.add_subcommand("comm", "Communication scheduling of data-parallel training (SimGrid)");
  comm->require_subcommand(1);
  add_schedulers(*comm, ctx);
  add_simulate(*comm, ctx);
  add_compare(*comm, ctx);
  add_comm_tune_command(*comm, ctx);
}

}  // namespace dmlkit::app
