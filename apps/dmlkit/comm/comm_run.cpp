// Options and output of `dmlkit comm simulate|compare|tune` (see comm_run.h).
#include "dmlkit/comm/comm_run.h"

#include <fmt/format.h>

#include <ostream>

#include "core/data_dir.h"
#include "core/output_dir.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/run_notes.h"
#include "dmlkit/run_output.h"
#include "dmlkit/trace_output.h"

namespace dmlkit::app {

void add_training_options(CLI::App& cmd, comm::TrainingSpec& o, uint64_t& seed) {
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
  cmd.add_option("--seed", seed, "Random seed (recorded; the simulation itself is deterministic)")
      ->capture_default_str();
  o.data_dir = dmlkit::default_data_dir();
  cmd.add_option(
      "--data-dir", o.data_dir,
      std::string("Folder of bundled data; model graphs are read from its model-graphs/ (") + kDataDirDefault + ")");
  cmd.add_option("--graph-dir", o.graph_dir,
                 "Folder of model graphs itself (an alias kept from earlier versions; overrides --data-dir)");
}

void add_scheduler_knob_options(CLI::App& cmd, SchedulerKnobOptions& o) {
  cmd.add_option("--partition-mb", o.partition_mb,
                 "Partition/slice size in MB (bytescheduler, p3, pace). Default per scheduler: bytescheduler 4 (ps) "
                 "or 32 (allreduce); p3 0.2; pace the size its cost model picks");
  cmd.add_option("--credit-mb", o.credit_mb,
                 "Credit window in MB (bytescheduler, p3, pace). Default per scheduler: bytescheduler 16 (ps) or 64 "
                 "(allreduce); p3 one slice per server (ps) or one slice (allreduce); pace one partition in flight");
  add_credit_mode_option(cmd, o);
  cmd.add_option("--fusion-mb", o.fusion_mb, "horovod fusion threshold in MiB. Default: 64");
  cmd.add_option("--cycle-ms", o.cycle_ms, "horovod cycle time in ms. Default: 5");
  cmd.add_option("--bucket-mib", o.bucket_mib, "ddp bucket cap in MiB")->capture_default_str();
  cmd.add_option("--first-bucket-mib", o.first_bucket_mib, "ddp first bucket cap in MiB")->capture_default_str();
  cmd.add_option("--scheduler-param", o.params,
                 "Any scheduler knob as <scheduler>.<knob>=value (repeatable; `dmlkit comm schedulers -v` lists "
                 "them), e.g. bytescheduler.partition-mb=8");
}

void add_credit_mode_option(CLI::App& cmd, SchedulerKnobOptions& o) {
  cmd.add_option("--credit-mode", o.credit_mode,
                 "bytescheduler credit semantics: any (send while credit > 0) or skip (BytePS)")
      ->capture_default_str();
}

KnobValues SchedulerKnobOptions::values() const {
  KnobValues given;
  auto note = [&](const char* key, bool set, const std::string& value) {
    if (set) given[key] = value;
  };
  note("partition-mb", partition_mb != -1, fmt::format("{}", partition_mb));
  note("credit-mb", credit_mb != -1, fmt::format("{}", credit_mb));
  note("credit-mode", credit_mode != "any", credit_mode);
  note("fusion-mb", fusion_mb != -1, fmt::format("{}", fusion_mb));
  note("cycle-ms", cycle_ms != -1, fmt::format("{}", cycle_ms));
  note("bucket-mib", bucket_mib != 25, fmt::format("{}", bucket_mib));
  note("first-bucket-mib", first_bucket_mib != 1, fmt::format("{}", first_bucket_mib));
  add_knob_values(given, params, "--scheduler-param");
  return given;
}

int write_and_print(const comm::RunOutput& run, OutputDir& dir, const OutputOptions& o, Context& ctx) {
  run.write(dir);
  const std::string path = commit_output(dir);
  if (o.format == "json")
    ctx.out << run.results.json_text();
  else if (o.format == "csv")
    ctx.out << run.summary.to_csv();
  else
    ctx.out << run.before_table << run.summary.render() << run.after_table;
  print_output_location(ctx, o.format, path);
  for (const auto& note : run.notes) print_note(ctx, o.format, note);
  if (!o.trace.empty()) write_trace(ctx, o.format, o.trace, run.trace);
  return 0;
}

}  // namespace dmlkit::app
