// --trace FILE.json, the option of the commands that export a Chrome/Perfetto trace of their
// timeline (comm simulate|compare, cluster simulate; core/trace_events.h): one behaviour for all.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "core/trace_events.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

// --trace FILE.json (`what`: e.g. "jobs on servers over time"), written to FILE (relative to the
// working folder) only when the option is given.
void add_trace_option(CLI::App& cmd, std::string& trace, const std::string& what);
// Before the run: throws Error("--trace PATH: reason") if the trace cannot go there (a folder,
// a missing parent folder, or inside the --out folder `out`, which dmlkit replaces as a whole).
void check_trace_target(const std::string& trace, const std::string& out);
// After commit_output: writes the trace atomically and says where (as print_output_location:
// on stdout with --format table, else on stderr).
void write_trace(Context& ctx, const std::string& format, const std::string& path, const TraceEvents& trace);

}  // namespace dmlkit::app
