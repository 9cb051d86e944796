// `dmlkit cluster serve --slurm --policy NAME`: runs a registered cluster policy against a live
// Slurm cluster until interrupted (SIGINT/SIGTERM) or --max-wall passes (docs/live-mode.md).
#include <iostream>

#include "cluster/model/placement.h"
#include "cluster/policy.h"
#include "core/error.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/python_plugin.h"
#include "dmlkit/stop_signals.h"
#include "live/controller.h"
#include "live/dry_run_backend.h"
#include "live/live_metrics.h"
#include "live/slurm_names.h"
#include "live/status_server.h"
#include "live/timed_backend.h"

namespace dmlkit::app {

namespace {

struct ServeOptions {
  bool slurm = false;
  std::string policy = "fifo";
  std::string slurm_conf;
  std::string state = "dmlkit-live-state.json";
  std::string decision_log;
  std::string placement = "consolidate";
  std::vector<std::string> policy_params;
  std::vector<std::string> policy_files;  // FILE.py:CLASS (python_plugin.h)
  bool policy_given = false;
  double round_s = 60;
  double poll_s = 1.0;
  double max_wall_s = 0;
  double command_timeout_s = 8;
  double start_timeout_s = 60;
  bool repair_gres_leaks = false;
  int max_retries = 0;
  std::string unexpressible = "wait";
  bool until_idle = false;
  std::vector<std::string> partitions, accounts, users;  // the scope (live/job_scope.h)
  bool dry_run = false;
  int metrics_port = 0;  // 0: no metrics server
  std::string metrics_host = "127.0.0.1";
};

live::JobScope make_scope(const ServeOptions& o) {
  live::check_scope_names("--partition", o.partitions);
  live::check_scope_names("--account", o.accounts);
  live::check_scope_names("--user", o.users);
  return {o.partitions, o.accounts, o.users};
}

// The metrics and status page server, if --metrics-port is given (before Slurm is contacted, so
// a port in use is reported at once).
std::unique_ptr<live::StatusServer> start_status_server(const ServeOptions& o, const live::LiveObserver& observer,
                                                        Context& ctx) {
  if (o.metrics_port == 0) return nullptr;
  auto server = std::make_unique<live::StatusServer>(observer, o.metrics_host, o.metrics_port);
  ctx.err << "serve: status page on " << server->url() << ", Prometheus metrics on " << server->url() << "metrics"
          << std::endl;
  return server;
}

cluster::PolicyOptions make_policy_options(const std::string& placement, const std::vector<std::string>& params) {
  cluster::PolicyOptions p;
  p.placement = cluster::parse_placement_kind(placement);
  cluster::add_policy_params(p.params, params);
  return p;
}

live::ControllerOptions controller_options(const ServeOptions& o, const live::JobScope& scope, Context& ctx) {
  live::ControllerOptions co;
  co.policy_name = o.policy;
  co.round_s = o.round_s;
  co.poll_s = o.poll_s;
  co.start_timeout_s = o.start_timeout_s;
  co.repair_gres_leaks = o.repair_gres_leaks;
  co.max_retries = o.max_retries;
  co.unexpressible = live::parse_unexpressible(o.unexpressible);
  co.state_path = o.dry_run ? "" : o.state;  // a dry run neither reads nor writes the real controller's state
  co.decision_log_path = o.decision_log;
  co.scope = scope;
  co.dry_run = o.dry_run;
  co.log = &ctx.err;
  return co;
}

int run_serve(ServeOptions& o, Context& ctx) {
  if (!o.slurm) throw Error("--slurm: live mode needs a backend; Slurm is the only one (give --slurm)");
  if (!o.policy_files.empty()) {
    const auto names = register_python_policies(o.policy_files);
    if (!o.policy_given) {
      if (names.size() != 1) throw Error("--policy-file: `cluster serve` runs one policy; name it with --policy");
      o.policy = names.front();
    }
  }
  if (!(o.round_s > 0)) throw Error("--round: must be positive");
  if (!(o.poll_s > 0)) throw Error("--poll: must be positive");
  const cluster::PolicyOptions popts = make_policy_options(o.placement, o.policy_params);
  cluster::check_policy_params({o.policy}, popts.params);
  auto policy = cluster::make_policy(o.policy, popts);
  live::SlurmClientOptions so;
  so.slurm_conf = o.slurm_conf;
  so.timeout_s = o.command_timeout_s;
  const live::JobScope scope = make_scope(o);
  live::SlurmClient client(so);
  live::DryRunBackend dry(client);  // --dry-run: reads only
  live::TimedBackend slurm(o.dry_run ? static_cast<live::ClusterBackend&>(dry) : client, /*keep_samples=*/false);
  live::LiveObserver observer(o.policy, scope.describe(), o.dry_run, slurm.now_s());
  const auto server = start_status_server(o, observer, ctx);
  live::ControllerOptions co = controller_options(o, scope, ctx);
  const live::Controller* running = nullptr;
  co.on_cycle = [&](double wall_s) {
    if (running) observer.update(*running, slurm, wall_s);
  };
  live::Controller controller(slurm, *policy, co);
  running = &controller;
  const StopSignals signals;
  const double start = slurm.now_s();
  auto stop = [&] {
    if (o.until_idle && !controller.rounds().empty() && controller.tracked_jobs() == 0) return true;
    return signals.requested() || (o.max_wall_s > 0 && slurm.now_s() - start > o.max_wall_s);
  };
  controller.start(stop);
  controller.run(stop);
  ctx.out << "serve: " << controller.rounds().size() << " rounds, " << controller.decisions().size() << " decisions, "
          << controller.finished().size() << " jobs seen finishing, " << controller.failed_jobs().size() << " failed; "
          << (signals.requested() ? "stopped by signal" : "stopped")
          << (o.dry_run ? " (dry run: nothing applied, no state file)" : ", state saved to " + o.state) << "\n";
  return 0;
}

}  // namespace

void add_cluster_serve_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<ServeOptions>();
  auto* cmd = cluster.add_subcommand("serve", "Run a policy on a live Slurm cluster (needs Slurm operator rights)");
  cmd->add_flag("--slurm", o.slurm, "Drive a Slurm cluster (the only backend)");
  cmd->add_option("--policy", o.policy, "Policy name (see `dmlkit cluster policies`)")->capture_default_str();
  cmd->add_option("--slurm-conf", o.slurm_conf, "slurm.conf to use (default: $SLURM_CONF or Slurm's own)");
  cmd->add_option("--state", o.state, "Controller state file (written atomically)")->capture_default_str();
  cmd->add_option("--decision-log", o.decision_log, "Append every decision to this file (JSON lines)");
  cmd->add_option("--round", o.round_s, "Seconds between decision rounds")->capture_default_str();
  cmd->add_option("--poll", o.poll_s, "Seconds between polls of Slurm")->capture_default_str();
  cmd->add_option("--max-wall", o.max_wall_s, "Stop after this many seconds (0 = until SIGINT/SIGTERM)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_flag("--until-idle", o.until_idle, "Stop once no job is pending or running (scripts, tests)");
  cmd->add_option("--command-timeout", o.command_timeout_s, "Timeout of each Slurm command (s)")
      ->check(above(0))
      ->capture_default_str();
  cmd->add_option("--start-timeout", o.start_timeout_s,
                  "Seconds a placed job may wait for Slurm to start it before it is placed elsewhere (0: never)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--max-retries", o.max_retries,
                  "Times a job that fails on its own (non-zero exit) is requeued and placed again before it is "
                  "reported as failed")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--unexpressible", o.unexpressible, live::kUnexpressibleHelp)->capture_default_str();
  cmd->add_flag("--repair-gres-leaks", o.repair_gres_leaks,
                "Run `scontrol reconfigure` when Slurm counts GPUs that no running job holds (needs admin rights)");
  cmd->add_option("--placement", o.placement, "Placement: consolidate, spread, first-fit, most-free")
      ->capture_default_str();
  cmd->add_option("--policy-param", o.policy_params, "Policy knob key=value (repeatable)");
  cmd->add_option("--policy-file", o.policy_files, kPolicyFileHelp);
  cmd->add_option("--partition", o.partitions,
                  "Manage only jobs of these partitions (repeatable or comma-separated); the policy sees only their "
                  "nodes. Jobs outside the scope are never touched")
      ->delimiter(',');
  cmd->add_option("--account", o.accounts, "Manage only jobs of these accounts (repeatable or comma-separated)")
      ->delimiter(',');
  cmd->add_option("--user", o.users, "Manage only jobs of these users (repeatable or comma-separated)")->delimiter(',');
  cmd->add_flag("--dry-run", o.dry_run,
                "Decide and log every decision, apply nothing (no Slurm change, no state file, no operator rights "
                "needed)");
  cmd->add_option("--metrics-port", o.metrics_port,
                  "Serve Prometheus metrics (/metrics) and a live status page (/) on this port (0: off)")
      ->capture_default_str();
  cmd->add_option("--metrics-host", o.metrics_host,
                  "Address the metrics and status page listen on (localhost only unless told otherwise)")
      ->capture_default_str();
  cmd->callback([&, cmd] {
    o.policy_given = cmd->count("--policy") > 0;
    ctx.run = [&] { return run_serve(o, ctx); };
  });
}

}  // namespace dmlkit::app
