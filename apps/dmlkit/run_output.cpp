#include "dmlkit/run_output.h"

#include <filesystem>
#include <ostream>

namespace dmlkit::app {

std::string commit_output(OutputDir& out) {
  return std::filesystem::absolute(out.commit()).lexically_normal().string();
}

void print_output_location(Context& ctx, const std::string& format, const std::string& path) {
  if (format == "table")
    ctx.out << "\nresults: " << path << "/results.json\nreport:  " << path << "/report.html\n";
  else
    ctx.err << "output: " << path << "\n";
}

}  // namespace dmlkit::app
