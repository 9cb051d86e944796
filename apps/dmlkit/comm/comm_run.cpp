// Options, runs and outputs of `dmlkit comm simulate|compare` (see comm_run.h).
#include "dmlkit/folder_help.h"
#include "dmlkit/run_output.h"
#include "dmlkit/trace_output.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/run_notes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "comm/compare.h"
#include "comm/model_graph.h"
#include "comm/scheduler_knobs.h"
#include "core/csv.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"

namespace dmlkit::app {

using nlohmann::ordered_json;

void add_comm_run_options(CLI::App& cmd, CommRunOptions& o, bool scheduler_knobs) {
  cmd.add_option("--model", o.model, "Model DAG (data/model-graphs): vgg16, resnet50, gnmt, ...")
      ->capture_default_str();
  cmd.add_option("--tensors", o.tensors,
                 "Gradient tensors: module (one per profiled module) or parameter (weight/bias/gamma/beta "
                 "split, the exact per-parameter tables)")
      ->capture_default_str();
  cmd.add_option("--arch", o.arch, "Synchronisation: ps (parameter servers) or allreduce (ring)")
      ->capture_default_str();
  cmd.add_option("--workers", o.workers, "Number of workers (one GPU each)")->capture_default_str();
  cmd.add_option("--servers", o.servers, "Number of parameter servers (ps; 0 = as many as workers)")
      ->capture_default_str();
  cmd.add_option("--bandwidth", o.bandwidth, "NIC bandwidth per direction, e.g. 10Gbps, 25Gbit/s, 1.25GBps")
      ->capture_default_str();
  cmd.add_option("--latency-us", o.latency_us, "Latency of one hop host->switch, microseconds")->capture_default_str();
  cmd.add_option("--switch-bandwidth", o.switch_bandwidth, "Shared switch backplane bandwidth (default: non-blocking)");
  cmd.add_option("--racks", o.racks, "Racks (hosts spread evenly; cross-rack traffic uses the rack uplinks)")
      ->capture_default_str();
  cmd.add_option("--uplink-bandwidth", o.uplink_bandwidth,
                 "Rack uplink bandwidth per direction (default: NIC bandwidth x hosts in the rack)");
  cmd.add_option("--op-overhead-us", o.op_overhead_us,
                 "Fixed cost of each synchronisation operation (launch/negotiation), microseconds")
      ->capture_default_str();
  cmd.add_flag("--ring-stepwise", o.ring_stepwise,
               "Simulate ring all-reduce step by step (2(N-1) barriers) instead of the equivalent aggregated flows");
  cmd.add_option("--compute-scale", o.compute_scale, "Multiply the profiled compute times (another GPU)")
      ->capture_default_str();
  cmd.add_option("--batch", o.batch, "Per-worker batch size; compute scales by batch/128 (profiles are at 128)")
      ->capture_default_str();
  cmd.add_option("--slow-worker", o.slow_workers,
                 "I:F - worker I computes F times slower (a straggling GPU; repeatable). Synchronous training waits "
                 "for it, so every worker's iteration runs at the slowest one's pace");
  cmd.add_option("--slow-link", o.slow_links,
                 "I:F - worker I's NIC has fraction F of the bandwidth, both directions (repeatable)");
  cmd.add_option("--iterations", o.iterations, "Simulated iterations")->capture_default_str();
  cmd.add_option("--warmup", o.warmup, "Leading iterations not reported")->capture_default_str();
  if (scheduler_knobs) {
    cmd.add_option("--partition-mb", o.partition_mb,
                   "Partition/slice size in MB (bytescheduler, p3, pace). Default per scheduler: bytescheduler 4 (ps) "
                   "or 32 (allreduce); p3 0.2; pace the size its cost model picks");
    cmd.add_option("--credit-mb", o.credit_mb,
                   "Credit window in MB (bytescheduler, p3, pace). Default per scheduler: bytescheduler 16 (ps) or 64 "
                   "(allreduce); p3 one slice per server (ps) or one slice (allreduce); pace one partition in flight");
    cmd.add_option("--credit-mode", o.credit_mode,
                   "bytescheduler credit semantics: any (send while credit > 0) or skip (BytePS)")
        ->capture_default_str();
    cmd.add_option("--fusion-mb", o.fusion_mb, "horovod fusion threshold in MiB. Default: 64");
    cmd.add_option("--cycle-ms", o.cycle_ms, "horovod cycle time in ms. Default: 5");
    cmd.add_option("--bucket-mib", o.bucket_mib, "ddp bucket cap in MiB")->capture_default_str();
    cmd.add_option("--first-bucket-mib", o.first_bucket_mib, "ddp first bucket cap in MiB")->capture_default_str();
    add_trace_option(cmd, o.trace,
                     "the steady-state iteration: each scheduler a process, the GPU and each network resource a thread");
  }
  cmd.add_option("--seed", o.seed, "Random seed (recorded; the simulation itself is deterministic)")
      ->capture_default_str();
  add_output_options(cmd, o.out, o.format);
  o.data_dir = dmlkit::default_data_dir();
  cmd.add_option("--data-dir", o.data_dir,
                 std::string("Folder of bundled data; model graphs are read from its model-graphs/ (") + kDataDirDefault +
                     ")");
  cmd.add_option("--graph-dir", o.graph_dir,
                 "Folder of model graphs itself (an alias kept from earlier versions; overrides --data-dir)");
}

CommSetup make_comm_setup(const CommRunOptions& o) {
  CommSetup s;
  s.net.arch = comm::parse_arch(o.arch);
  s.net.workers = o.workers;
  s.net.servers = o.servers == 0 ? o.workers : o.servers;
  if (o.servers < 0) throw Error("", 0, "servers", "must be >= 0");
  s.net.bandwidth_Bps = comm::parse_bandwidth(o.bandwidth, "bandwidth");
  s.net.latency_s = o.latency_us * 1e-6;
  if (!o.switch_bandwidth.empty())
    s.net.switch_bandwidth_Bps = comm::parse_bandwidth(o.switch_bandwidth, "switch_bandwidth");
  s.net.op_overhead_s = o.op_overhead_us * 1e-6;
  s.net.racks = o.racks;
  if (!o.uplink_bandwidth.empty())
    s.net.uplink_bandwidth_Bps = comm::parse_bandwidth(o.uplink_bandwidth, "uplink_bandwidth");
  s.net.ring_stepwise = o.ring_stepwise;
  // "I:F" pairs of --slow-worker / --slow-link.
  auto pairs = [&](const std::vector<std::string>& specs, const char* field) {
    std::vector<std::pair<int, double>> out;
    for (const auto& spec : specs) {
      const auto colon = spec.find(':');
      double index = -1, factor = 0;
      if (colon == std::string::npos || !parse_double(spec.substr(0, colon), index) ||
          !parse_double(spec.substr(colon + 1), factor) || index != std::floor(index))
        throw Error("", 0, field, "expected WORKER:FACTOR (e.g. 3:0.5), got '" + spec + "'");
      out.emplace_back(static_cast<int>(index), factor);
    }
    return out;
  };
  s.net.slow_links = pairs(o.slow_links, "slow_link");
  double slowest = 1;
  for (const auto& [w, f] : pairs(o.slow_workers, "slow_worker")) {
    if (w < 0 || w >= o.workers)
      throw Error("", 0, "slow_worker",
                  "worker " + std::to_string(w) + " does not exist (workers 0-" + std::to_string(o.workers - 1) + ")");
    if (!(f >= 1) || !std::isfinite(f)) throw Error("", 0, "slow_worker", "the slowdown factor must be >= 1");
    slowest = std::max(slowest, f);
  }
  s.net.validate();
  if (o.batch < 1) throw Error("", 0, "batch", "must be >= 1");
  auto graph = comm::load_model(o.model, o.graph_dir.empty() ? o.data_dir + "/model-graphs" : o.graph_dir);
  // [A] Workers are otherwise identical and synchronous: each tensor is reduced when the slowest
  // worker has it, and every worker waits for the reduced parameters, so the iterations run at the
  // slowest worker's compute pace (the simulator's one compute timeline takes it).
  comm::scale_compute(graph, o.compute_scale * o.batch / 128.0 * slowest);
  s.workload = comm::make_workload(graph, comm::parse_granularity(o.tensors));
  auto size = [](double mb, const char* field, double unit) -> std::optional<double> {
    if (mb == -1) return std::nullopt;
    if (!(mb > 0) || !std::isfinite(mb)) throw Error("", 0, field, "must be > 0");
    return mb * unit;
  };
  s.sched.partition_bytes = size(o.partition_mb, "partition", 1e6);
  s.sched.credit_bytes = size(o.credit_mb, "credit", 1e6);
  if (o.credit_mode == "any")
    s.sched.credit_mode = comm::CreditMode::any;
  else if (o.credit_mode == "skip")
    s.sched.credit_mode = comm::CreditMode::skip;
  else
    throw Error("", 0, "credit_mode", "must be any or skip, got '" + o.credit_mode + "'");
  if (o.fusion_mb != -1) {
    if (!(o.fusion_mb >= 0)) throw Error("", 0, "fusion_threshold", "must be >= 0");
    s.sched.fusion_bytes = o.fusion_mb * 1024 * 1024;
  }
  if (o.cycle_ms != -1) s.sched.cycle_s = *size(o.cycle_ms, "cycle_time", 1e-3);
  s.sched.bucket_bytes = *size(o.bucket_mib, "bucket", 1024.0 * 1024);
  s.sched.first_bucket_bytes = *size(o.first_bucket_mib, "first_bucket", 1024.0 * 1024);
  s.sim.iterations = o.iterations;
  s.sim.warmup = o.warmup;
  s.sim.validate();
  return s;
}

namespace {

using comm::SchedulerRun;

// The scheduler options the user gave, as knob values of the scheduler registry.
KnobValues given_scheduler_knobs(const CommRunOptions& o) {
  KnobValues given;
  auto note = [&](const char* flag, bool set, const std::string& value) {
    if (set) given[flag] = value;
  };
  note("--partition-mb", o.partition_mb != -1, fmt::format("{}", o.partition_mb));
  note("--credit-mb", o.credit_mb != -1, fmt::format("{}", o.credit_mb));
  note("--credit-mode", o.credit_mode != "any", o.credit_mode);
  note("--fusion-mb", o.fusion_mb != -1, fmt::format("{}", o.fusion_mb));
  note("--cycle-ms", o.cycle_ms != -1, fmt::format("{}", o.cycle_ms));
  note("--bucket-mib", o.bucket_mib != 25, fmt::format("{}", o.bucket_mib));
  note("--first-bucket-mib", o.first_bucket_mib != 1, fmt::format("{}", o.first_bucket_mib));
  return given;
}

Results comm_results(const CommRunOptions& o, const CommSetup& s, const std::vector<SchedulerRun>& rows) {
  Results res(o.command, "scheduler");
  auto& in = res.inputs();
  in["model"] = o.model;
  in["tensors"] = o.tensors;
  in["arch"] = o.arch;
  in["workers"] = s.net.workers;
  in["servers"] = s.net.arch == comm::Arch::ps ? s.net.servers : 0;
  in["bandwidth_Bps"] = s.net.bandwidth_Bps;
  in["latency_s"] = s.net.latency_s;
  in["switch_bandwidth_Bps"] = s.net.switch_bandwidth_Bps;
  in["racks"] = s.net.racks;
  in["uplink_bandwidth_Bps"] = s.net.uplink_bandwidth_Bps;
  in["op_overhead_s"] = s.net.op_overhead_s;
  in["ring_stepwise"] = s.net.ring_stepwise;
  in["compute_scale"] = o.compute_scale;
  in["slow_workers"] = o.slow_workers;
  in["slow_links"] = o.slow_links;
  in["batch"] = o.batch;
  in["iterations"] = o.iterations;
  in["warmup"] = o.warmup;
  in["credit_mode"] = o.credit_mode;
  if (s.sched.partition_bytes) in["partition_bytes"] = *s.sched.partition_bytes;
  if (s.sched.credit_bytes) in["credit_bytes"] = *s.sched.credit_bytes;
  if (s.sched.fusion_bytes) in["fusion_bytes"] = *s.sched.fusion_bytes;
  if (s.sched.cycle_s) in["cycle_s"] = *s.sched.cycle_s;
  in["schedulers"] = o.schedulers;
  // Every knob of the chosen schedulers as used: given, else its default resolved for this run (issue 20).
  in["effective_knobs"] = comm::resolved_scheduler_knobs(o.schedulers, s.sched, s.net.arch, s.workload, s.net);
  in["seeds"] = ordered_json::array({o.seed});
  auto& d = res.derived();
  d["compute_s"] = s.workload.compute_s();
  d["gradient_bytes"] = s.workload.total_bytes();
  d["tensors"] = s.workload.tensors.size();
  d["comm_bound_s"] = comm::comm_bound_s(s.workload, s.net);
  d["lower_bound_s"] = comm::lower_bound_s(s.workload, s.net);
  comm::add_scheduler_records(res, rows, o.seed);
  return res;
}

TextTable summary(const std::vector<SchedulerRun>& rows, double lb) {
  TextTable t(
      {"scheduler", "iteration_mean_ms", "speedup_over_fifo", "lower_bound_ms", "distance_to_lower_bound_pct", "overlap",
       "transfers"});
  for (const auto& row : rows)
    t.add_row({row.r.scheduler, fixed(row.r.iteration_mean_s * 1e3, 3),
               std::isfinite(row.speedup_over_fifo) ? fixed(row.speedup_over_fifo, 3) : "", fixed(lb * 1e3, 3),
               fixed(row.distance_to_bound * 100, 1), fixed(row.r.overlap, 3), std::to_string(row.r.transfers)});
  return t;
}

HtmlReport report(const CommRunOptions& o, const CommSetup& s, const std::vector<SchedulerRun>& rows) {
  HtmlReport rep("dmlkit comm: " + o.model + " on " + std::to_string(s.net.workers) + " workers (" + o.arch + ")");
  rep.add_facts({{"Model", o.model + " (" + std::to_string(s.workload.tensors.size()) + " gradient tensors, " +
                               fixed(s.workload.total_bytes() / 1e6, 1) + " MB)"},
                 {"Architecture",
                  o.arch == "ps" ? "parameter servers (" + std::to_string(s.net.servers) + ")" : "ring all-reduce"},
                 {"Workers", std::to_string(s.net.workers)},
                 {"NIC bandwidth", o.bandwidth},
                 {"Compute per iteration", fixed(s.workload.compute_s() * 1e3, 2) + " ms"},
                 {"Lower bound", fixed(comm::lower_bound_s(s.workload, s.net) * 1e3, 2) + " ms (max of compute and " +
                                     fixed(comm::comm_bound_s(s.workload, s.net) * 1e3, 2) + " ms of transfer)"}});
  rep.add_heading("Iteration time per scheduler");
  rep.add_table(summary(rows, comm::lower_bound_s(s.workload, s.net)),
                "Steady state (mean after warm-up). overlap = fraction of communication time hidden under compute; "
                "distance_to_lower_bound_pct = how far above the lower bound, in percent.");
  rep.add_heading("Timelines");
  rep.add_paragraph(
      "One steady-state iteration per scheduler: the first row is the GPU (forward and backward "
      "compute), the next rows are the network resources (PS server NICs or the ring), one bar per "
      "transfer (hover a bar for its layer or tensor). Every span with its tensor is in timeline-<scheduler>.csv; "
      "--trace FILE.json writes all of them as a Chrome/Perfetto trace (ui.perfetto.dev, chrome://tracing).");
  for (const auto& row : rows) rep.add_chart(comm::iteration_gantt(row.r));
  return rep;
}

// One-line notes (issue 20): every scheduler at a compute-bound lower bound (scheduling cannot
// help), or bytescheduler on its default knobs slower than fifo (they are far from
// tuned: `comm tune` finds better ones).
void print_comm_notes(Context& ctx, const CommRunOptions& o, const CommSetup& s, const std::vector<SchedulerRun>& rows) {
  const double compute = s.workload.compute_s(), transfer = comm::comm_bound_s(s.workload, s.net);
  bool all_at_bound = !rows.empty();
  for (const auto& row : rows) all_at_bound = all_at_bound && row.distance_to_bound < 0.01;
  if (all_at_bound && compute >= transfer)
    print_note(ctx, o.format,
               "every scheduler is within 1% of the lower bound, the compute time (" + fixed(compute * 1e3, 1) +
                   " ms against " + fixed(transfer * 1e3, 1) + " ms of transfer): " + o.model + " is compute-bound at " +
                   o.bandwidth + ", so no scheduler can help; try a lower --bandwidth or --model vgg16");
  const bool knobs_given = o.partition_mb != -1 || o.credit_mb != -1;
  for (const auto& row : rows) {
    const auto& name = row.r.scheduler;
    if (knobs_given || name != "bytescheduler" || !(row.speedup_over_fifo < 1)) continue;
    print_note(ctx, o.format,
               name + " ran on its default --partition-mb/--credit-mb and is " + fixed(row.speedup_over_fifo, 2) +
                   "x fifo here; its defaults are far from tuned: `dmlkit comm tune --scheduler bytescheduler` "
                   "with the same options finds better ones (docs/comm.md)");
  }
}

}  // namespace

CommSetup validate_comm_run(const CommRunOptions& o) {
  CommSetup s = make_comm_setup(o);
  if (o.schedulers.empty()) throw Error("", 0, "schedulers", "no scheduler given");
  check_trace_target(o.trace, o.out);
  // A scheduler option none of the chosen schedulers reads is rejected (as a typo would be).
  comm::scheduler_registry().check_knobs(o.schedulers, given_scheduler_knobs(o));
  for (size_t i = 0; i < o.schedulers.size(); ++i) {
    comm::validate_scheduler(o.schedulers[i], s.sched, s.net.arch);
    for (size_t k = 0; k < i; ++k)
      if (o.schedulers[i] == o.schedulers[k]) throw Error("", 0, "schedulers", "'" + o.schedulers[i] + "' given twice");
  }
  return s;
}

int run_comm_schedulers(const CommRunOptions& o, Context& ctx) {
  const CommSetup s = validate_comm_run(o);
  std::vector<SchedulerRun> rows;
  for (const auto& name : o.schedulers) rows.push_back({comm::simulate(s.workload, s.net, name, s.sched, s.sim)});
  const double lb = comm::lower_bound_s(s.workload, s.net);
  comm::add_speedups(rows, lb);
  const Results res = comm_results(o, s, rows);
  OutputDir out(o.out);
  res.write(out);
  for (const auto& row : rows) out.write("timeline-" + row.r.scheduler + ".csv", comm::timeline_table(row.r).to_csv());
  report(o, s, rows).write(out);
  const std::string path = commit_output(out);
  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << summary(rows, lb).to_csv();
  } else {
    ctx.out << o.model << " on " << s.net.workers << " workers, " << o.arch << ", " << o.bandwidth << ": compute "
            << fixed(s.workload.compute_s() * 1e3, 2) << " ms, gradients " << fixed(s.workload.total_bytes() / 1e6, 1)
            << " MB\n\n"
            << summary(rows, lb).render();
  }
  print_output_location(ctx, o.format, path);
  print_comm_notes(ctx, o, s, rows);
  if (!o.trace.empty()) {  // the same timelines for ui.perfetto.dev / chrome://tracing
    TraceEvents trace;
    for (size_t i = 0; i < rows.size(); ++i) comm::add_iteration_trace(trace, static_cast<int>(i) + 1, rows[i].r);
    write_trace(ctx, o.format, o.trace, trace);
  }
  return 0;
}

}  // namespace dmlkit::app
