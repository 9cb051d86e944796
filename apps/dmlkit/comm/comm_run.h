// What `dmlkit comm simulate`, `compare` and `tune` (and `ps compare`, `gnn compare`) share in the
// CLI: the options of a comm::TrainingSpec, the shared scheduler-knob options, and printing and
// writing a run's output (comm/run.h: RunOutput). The runs themselves are in src/comm/run.h.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/run.h"
#include "core/knobs.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

// --model ... --warmup, --data-dir and --graph-dir into `spec`; --seed into `seed`.
void add_training_options(CLI::App& cmd, comm::TrainingSpec& spec, uint64_t& seed);

// The shared options that set a scheduler knob for every chosen scheduler declaring it
// (--partition-mb, --credit-mb, --credit-mode, --fusion-mb, --cycle-ms, --bucket-mib,
// --first-bucket-mib) and --scheduler-param <scheduler>.<knob>=<value> for any declared knob.
struct SchedulerKnobOptions {
  double partition_mb = -1, credit_mb = -1;  // -1 = not given
  std::string credit_mode = "any";
  double fusion_mb = -1, cycle_ms = -1;
  double bucket_mib = 25, first_bucket_mib = 1;
  std::vector<std::string> params;  // --scheduler-param key=value
  // The knob values given (bare keys for the shared options; see comm/scheduler.h).
  KnobValues values() const;
};
void add_scheduler_knob_options(CLI::App& cmd, SchedulerKnobOptions& o);
// Only --credit-mode (comm tune: the other knobs are searched).
void add_credit_mode_option(CLI::App& cmd, SchedulerKnobOptions& o);

// Where a run's output goes: --out, --format and (comm simulate/compare) --trace.
struct OutputOptions {
  std::string out;
  std::string format = "table";
  std::string trace;
};

// Writes `run` into the folder (already checked: `dir`), commits it, prints the summary in the
// chosen format, the folder, the notes and (with --trace) the trace file.
int write_and_print(const comm::RunOutput& run, OutputDir& dir, const OutputOptions& o, Context& ctx);

}  // namespace dmlkit::app
