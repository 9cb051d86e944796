#include "dmlkit/run_output.h"

#include <filesystem>
#include <ostream>

namespace dmlkit::app {

void add_output_options(CLI::App& cmd, std::string& out, std::string& format) {
  cmd.add_option("--out", out, "Output folder (results.json, CSV tables, report.html)")->capture_default_str();
  cmd.add_option("--format", format, "What to print: table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
}

std::string commit_output(OutputDir& out) {
  return std::filesystem::absolute(out.commit()).lexically_normal().string();
}

void print_output_location(Context& ctx, const std::string& format, const std::string& path) {
  if (format == "table")
    ctx.out << "\nresults: " << path << "/results.json\nreport:  " << path << "/report.html\n";
  else
    ctx.err << "output: " << path << "\n";
}

void add_list_format_option(CLI::App& cmd, std::string& format) {
  format = "table";
  cmd.add_option("--format", format, "table: one line per entry (-v: details); json: everything -v prints, as JSON")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
}

}  // namespace dmlkit::app
