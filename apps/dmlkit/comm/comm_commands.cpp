// `dmlkit comm ...`: iteration-level simulation of communication scheduling (docs/comm.md).
#include <ostream>

#include "comm/run.h"
#include "comm/scheduler.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "dmlkit/trace_output.h"

namespace dmlkit::app {

namespace {

// `comm schedulers` (also `comm list`); -v: architectures, summary and knobs from the registry.
void comm_add_schedulers(CLI::App& comm, Context& ctx) {
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

// The options of `comm simulate` and `comm compare`: the spec, the shared knob options, the output.
struct CommRunCli {
  comm::RunSpec spec;
  SchedulerKnobOptions knobs;
  OutputOptions output;
};

void comm_add_run_options(CLI::App& cmd, CommRunCli& c) {
  add_training_options(cmd, c.spec, c.spec.seed);
  add_scheduler_knob_options(cmd, c.knobs);
  add_trace_option(cmd, c.output.trace,
                   "the steady-state iteration: each scheduler a process, the GPU and each network resource a thread");
  add_output_options(cmd, c.output.out, c.output.format);
}

// Fills the spec's knobs, checks everything (the --trace target too) before any simulation.
void comm_check_run(CommRunCli& c) {
  c.spec.scheduler_params = c.knobs.values();
  (void)comm::check(c.spec);
  check_trace_target(c.output.trace, c.output.out);
}

int comm_run_schedulers(CommRunCli& c, Context& ctx) {
  comm_check_run(c);
  OutputDir dir(c.output.out);
  ProgressBar bar(c.spec.command, static_cast<double>(c.spec.chosen().size()));
  const comm::RunOutput run = comm::run(c.spec, &bar);
  bar.finish();
  return write_and_print(run, dir, c.output, ctx);
}

void comm_add_simulate(CLI::App& comm, Context& ctx) {
  auto& c = ctx.make<CommRunCli>();
  auto& scheduler = ctx.make<std::string>();
  scheduler = "bytescheduler";
  auto* cmd = comm.add_subcommand("simulate", "Simulate training iterations with one scheduler");
  cmd->add_option("--scheduler", scheduler, "Scheduler (see `dmlkit comm schedulers`)")->capture_default_str();
  comm_add_run_options(*cmd, c);
  cmd->callback([&] {
    c.spec.schedulers = {scheduler};
    c.spec.command = "comm simulate";
    if (c.output.out.empty()) c.output.out = "out/comm-simulate";
    ctx.run = [&] { return comm_run_schedulers(c, ctx); };
    ctx.validate = [&] { comm_check_run(c); };
  });
}

void comm_add_compare(CLI::App& comm, Context& ctx) {
  auto& c = ctx.make<CommRunCli>();
  auto* cmd = comm.add_subcommand("compare", "Compare schedulers on the same model and cluster");
  cmd->add_option("--schedulers", c.spec.schedulers, "Comma-separated schedulers (default: all that support --arch)")
      ->delimiter(',');
  comm_add_run_options(*cmd, c);
  cmd->callback([&] {
    c.spec.command = "comm compare";
    if (c.output.out.empty()) c.output.out = "out/comm-compare";
    ctx.run = [&] { return comm_run_schedulers(c, ctx); };
    ctx.validate = [&] { comm_check_run(c); };
  });
}

// `comm tune`: Bayesian optimisation (GP + expected improvement) of a scheduler's tuning space
// (bytescheduler's partition and credit, horovod's threshold and cycle), compared with a grid
// search over the same box (docs/comm.md, "Auto-tuning").
struct CommTuneCli {
  comm::TuneSpec spec;
  SchedulerKnobOptions knobs;
  OutputOptions output;
};

void comm_check_tune(CommTuneCli& c) {
  c.spec.scheduler_params = c.knobs.values();
  (void)comm::check(c.spec);
}

void comm_add_tune(CLI::App& comm, Context& ctx) {
  auto& c = ctx.make<CommTuneCli>();
  auto& t = c.spec;
  auto* cmd = comm.add_subcommand("tune", "Auto-tune bytescheduler (partition, credit) or horovod (threshold, cycle)");
  cmd->add_option("--scheduler", t.scheduler, "bytescheduler or horovod")->capture_default_str();
  cmd->add_option("--probes", t.probes, "Simulated runs of the Bayesian optimisation")->capture_default_str();
  cmd->add_option("--initial", t.initial, "Random initial probes before expected improvement")->capture_default_str();
  cmd->add_option("--grid", t.grid, "Grid points per dimension for the comparison (0 = no grid)")
      ->capture_default_str();
  add_training_options(*cmd, t, t.seed);
  add_output_options(*cmd, c.output.out, c.output.format);
  add_credit_mode_option(*cmd, c.knobs);
  cmd->callback([&] {
    if (c.output.out.empty()) c.output.out = "out/comm-tune";
    ctx.run = [&] {
      comm_check_tune(c);
      OutputDir dir(c.output.out);
      ProgressBar bar("comm tune", 0);
      const comm::RunOutput run = comm::run(c.spec, &bar);
      bar.finish();
      return write_and_print(run, dir, c.output, ctx);
    };
    ctx.validate = [&] { comm_check_tune(c); };
  });
}

}  // namespace

void add_comm_commands(CLI::App& app, Context& ctx) {
  auto* comm = app.add_subcommand("comm", "Communication scheduling of data-parallel training (SimGrid)");
  comm->require_subcommand(1);
  comm_add_schedulers(*comm, ctx);
  comm_add_simulate(*comm, ctx);
  comm_add_compare(*comm, ctx);
  comm_add_tune(*comm, ctx);
}

}  // namespace dmlkit::app
