// `dmlkit ps ...`: parameter-server load distribution under stragglers on the iteration simulator
// (docs/psld.md): `ps list` shows the assignment policies, `ps compare` runs several on one model,
// cluster and straggler scenario and writes results.json, CSV tables and report.html.
#include <cmath>
#include <ostream>

#include "comm/network.h"
#include "core/error.h"
#include "core/knob_use.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/commands.h"
#include "dmlkit/run_output.h"
#include "ps/compare.h"
#include "ps/policy.h"
#include "ps/runner.h"
#include "ps/stragglers.h"

namespace dmlkit::app {
namespace {

struct PsCompareOptions {
  CommRunOptions comm;  // model, cluster, network, iterations, seed, output (shared with `comm`)
  std::vector<std::string> policies{"mxnet", "byteps", "paa", "psld"};
  std::vector<std::string> policy_params;
  std::string stragglers = "rotating";
  double server_GBps = 4;
};

void add_list(CLI::App& ps, Context& ctx) {
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

HtmlReport report(const PsCompareOptions& o, const CommSetup& s, const ps::StragglerScenario& st,
                  const std::vector<ps::PolicyRun>& runs) {
  HtmlReport rep("dmlkit ps: " + o.comm.model + ", " + std::to_string(s.net.workers) + " workers, " +
                 std::to_string(s.net.servers) + " PSs, stragglers " + o.stragglers);
  rep.add_facts({{"Model", o.comm.model + " (" + std::to_string(s.workload.tensors.size()) + " gradient tensors, " +
                               fixed(s.workload.total_bytes() / 1e6, 1) + " MB)"},
                 {"Cluster", std::to_string(s.net.workers) + " workers, " + std::to_string(s.net.servers) +
                                 " parameter servers, NIC " + o.comm.bandwidth},
                 {"Server CPU", fixed(o.server_GBps, 2) + " GB/s aggregation per healthy server"},
                 {"Iterations", std::to_string(o.comm.iterations)},
                 {"Stragglers", o.stragglers + " (" + std::to_string(st.events.size()) + " events)"}});
  rep.add_heading("Time for all iterations per policy");
  rep.add_table(ps::summary_table(runs),
                "speedup = the baseline's time for all iterations / this policy's. imbalance = mean over "
                "iterations of the most loaded server's bytes over the mean of the servers holding bytes.");
  rep.add_heading("Iteration time over the run");
  rep.add_chart(ps::iteration_chart(runs));
  rep.add_heading("PS load over time");
  for (const auto& r : runs) rep.add_chart(ps::load_chart(r));
  bool dynamic = false;
  for (const auto& r : runs) dynamic = dynamic || !r.run.events.empty();
  if (dynamic) {
    rep.add_heading("When the dynamic policies migrated or scaled");
    rep.add_table(ps::events_table(runs),
                  "decided: the iteration the change was agreed; switch: the iteration the key map flipped; "
                  "wait_s: how long that iteration waited for the moves.");
    for (const auto& r : runs)
      if (!r.run.events.empty()) rep.add_chart(ps::estimate_chart(r));
  }
  if (!st.events.empty()) {
    rep.add_heading("Straggler scenario");
    rep.add_table(ps::stragglers_table(st), "cpu: slowdown factor of the server CPU; bandwidth: background flows "
                                            "into and out of the server NIC. Iterations [start, end).");
  }
  return rep;
}

// What run_compare checks and builds before a simulation starts; alone, it is Context::validate.
struct PsCompareInputs {
  CommSetup s;
  KnobValues params;
  ps::StragglerScenario st;
  KnobValues effective_knobs;  // every knob of the policies as their factories read it
};

PsCompareInputs checked_inputs(PsCompareOptions& o) {
  o.comm.schedulers = {"fifo"};
  if (o.comm.arch != "ps") throw Error("", 0, "arch", "dmlkit ps runs parameter servers only (--arch ps)");
  if (o.comm.servers < 1) throw Error("", 0, "servers", "must be >= 1");
  PsCompareInputs in{make_comm_setup(o.comm), {}, {}};
  if (!(o.server_GBps >= 0) || !std::isfinite(o.server_GBps)) throw Error("", 0, "server_GBps", "must be >= 0");
  if (o.policies.empty()) throw Error("", 0, "policies", "no policy given");
  add_knob_values(in.params, o.policy_params, "--policy-param");
  ps::policy_registry().check_knobs(o.policies, in.params);
  KnobUseRecorder used;  // the values the factories read, run-dependent defaults included
  for (size_t i = 0; i < o.policies.size(); ++i) {
    (void)ps::make_policy(o.policies[i], in.params);
    for (size_t k = 0; k < i; ++k)
      if (o.policies[i] == o.policies[k]) throw Error("", 0, "policies", "'" + o.policies[i] + "' given twice");
  }
  in.effective_knobs = effective_knobs(ps::policy_registry(), o.policies, in.params, used.values());
  in.st = ps::load_stragglers(o.stragglers, in.s.net.servers, o.comm.iterations);
  return in;
}

int run_compare(PsCompareOptions& o, Context& ctx) {
  const PsCompareInputs checked = checked_inputs(o);
  const CommSetup& s = checked.s;
  const KnobValues& params = checked.params;
  const ps::StragglerScenario& st = checked.st;
  ps::PsRunOptions ro;
  ro.iterations = o.comm.iterations;
  ro.server_Bps = o.server_GBps * 1e9;
  ro.seed = o.comm.seed;
  OutputDir out(o.comm.out);
  std::vector<ps::PolicyRun> runs;
  for (const auto& name : o.policies) runs.push_back({ps::run_policy(s.workload, s.net, name, params, st, ro)});
  ps::add_comparisons(runs, o.comm.warmup);
  Results res("ps compare", "policy");
  auto& in = res.inputs();
  in["model"] = o.comm.model;
  in["tensors"] = o.comm.tensors;
  in["workers"] = s.net.workers;
  in["servers"] = s.net.servers;
  in["bandwidth_Bps"] = s.net.bandwidth_Bps;
  in["latency_s"] = s.net.latency_s;
  in["op_overhead_s"] = s.net.op_overhead_s;
  in["server_Bps"] = ro.server_Bps;
  in["compute_scale"] = o.comm.compute_scale;
  in["batch"] = o.comm.batch;
  in["iterations"] = o.comm.iterations;
  in["warmup"] = o.comm.warmup;
  in["stragglers"] = o.stragglers;
  in["policies"] = o.policies;
  auto& pp = in["policy_params"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : params) pp[k] = v;
  in["effective_knobs"] = checked.effective_knobs;
  in["seeds"] = nlohmann::ordered_json::array({o.comm.seed});
  auto& d = res.derived();
  d["compute_s"] = s.workload.compute_s();
  d["gradient_bytes"] = s.workload.total_bytes();
  d["tensors"] = s.workload.tensors.size();
  d["lower_bound_s"] = comm::lower_bound_s(s.workload, s.net);
  ps::add_policy_records(res, runs, o.comm.seed);
  res.write(out);
  out.write("iterations.csv", ps::iterations_table(runs).to_csv());
  out.write("loads.csv", ps::loads_table(runs).to_csv());
  out.write("events.csv", ps::events_table(runs).to_csv());
  out.write("stragglers.csv", ps::stragglers_table(st).to_csv());
  report(o, s, st, runs).write(out);
  const std::string path = commit_output(out);
  if (o.comm.format == "json") {
    ctx.out << res.json_text();
  } else if (o.comm.format == "csv") {
    ctx.out << ps::summary_table(runs).to_csv();
  } else {
    ctx.out << o.comm.model << ", " << s.net.workers << " workers, " << s.net.servers << " PSs, " << o.comm.bandwidth
            << ", stragglers " << o.stragglers << ", " << o.comm.iterations << " iterations\n\n"
            << ps::summary_table(runs).render();
  }
  print_output_location(ctx, o.comm.format, path);
  return 0;
}

void add_compare(CLI::App& ps, Context& ctx) {
  auto& o = ctx.make<PsCompareOptions>();
  o.comm.iterations = 500;
  o.comm.warmup = 0;
  o.comm.servers = 4;
  auto* cmd = ps.add_subcommand("compare", "Compare PS assignment policies under stragglers");
  cmd->add_option("--policies", o.policies, "Comma-separated policies (see `dmlkit ps list`)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--policy-param", o.policy_params, "Policy knob key=value (repeatable), e.g. psld.ewma_alpha=0.5");
  cmd->add_option("--stragglers", o.stragglers, "Straggler scenario: none, persistent, rotating, burst, or a CSV file")
      ->capture_default_str();
  cmd->add_option("--server-GBps", o.server_GBps,
                  "Aggregation throughput of a healthy server CPU, GB/s (0 = CPU not simulated)")
      ->capture_default_str();
  add_comm_run_options(*cmd, o.comm, false);
  cmd->callback([&] {
    o.comm.command = "ps compare";
    if (o.comm.out.empty()) o.comm.out = "out/ps-compare";
    ctx.run = [&] { return run_compare(o, ctx); };
    ctx.validate = [&] { (void)checked_inputs(o); };
  });
}

}  // namespace

void add_ps_commands(CLI::App& app, Context& ctx) {
  auto* ps = app.add_subcommand("ps", "Parameter-server load distribution under stragglers (SimGrid)");
  ps->require_subcommand(1);
  add_list(*ps, ctx);
  add_compare(*ps, ctx);
}

}  // namespace dmlkit::app
