// --trace FILE.json (see trace_output.h).
#include "dmlkit/trace_output.h"

#include <filesystem>
#include <ostream>

#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit::app {

void add_trace_option(CLI::App& cmd, std::string& trace, const std::string& what) {
  cmd.add_option("--trace", trace,
                 "Also write a Chrome/Perfetto trace (" + what +
                     ") to this JSON file; open it in ui.perfetto.dev or chrome://tracing (default: none)");
}

void check_trace_target(const std::string& trace, const std::string& out) {
  if (trace.empty()) return;
  namespace fs = std::filesystem;
  const fs::path path = fs::absolute(trace).lexically_normal();
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error("--trace " + trace + ": is a folder; give a file name such as trace.json");
  if (!fs::is_directory(path.parent_path(), ec))
    throw Error("--trace " + trace + ": the folder " + path.parent_path().string() + " does not exist");
  const fs::path folder = fs::absolute(out).lexically_normal();
  const auto rel = path.lexically_relative(folder);
  if (!rel.empty() && *rel.begin() != "..")
    throw Error("--trace " + trace + ": must not be inside the --out folder " + out +
                " (dmlkit replaces that folder as a whole); write it beside it");
}

void write_trace(Context& ctx, const std::string& format, const std::string& path, const TraceEvents& trace) {
  write_file_atomic(path, trace.json_text());
  const std::string where = std::filesystem::absolute(path).lexically_normal().string();
  if (format == "table")
    ctx.out << "trace:   " << where << "\n";
  else
    ctx.err << "trace: " << where << "\n";
}

}  // namespace dmlkit::app
