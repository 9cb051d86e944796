// `dmlkit report DIR` (issue 20): re-renders a run's report.html from its results folder, for every
// command that writes a report (cluster, comm, ps, gnn, influence, continual, football, sweep,
// OASiS and experiment presets, training, live replay): one mechanism, report.json. Every report
// is written through HtmlReport::write(), which saves the page's content (title, facts, tables,
// every chart's points and bars) as report.json beside report.html; this command rebuilds the page
// from it with the current page code (style, chart drawing, header titles) and takes the "How to
// regenerate" footer from results.json's invocation (the run's command line, not this one's).
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/provenance.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const fs::path& path) {
  try {
    return json::parse(read_file(path.string()));
  } catch (const json::exception& e) {
    throw Error(path.string(), 0, "", std::string("not valid JSON: ") + e.what());
  }
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto& dir = ctx.make<std::string>();
  auto* cmd = app.add_subcommand("report",
                                 "Re-render a run's report.html from its results folder (report.json, and results.json "
                                 "for the original command line); every command that writes a report");
  cmd->add_option("DIR", dir, "The results folder (as written by --out)")->required();
  cmd->callback([&] {
    ctx.run = [&] {
      const fs::path folder(dir);
      std::error_code ec;
      if (!fs::is_directory(folder, ec)) throw Error(dir, 0, "", "no such folder");
      const fs::path model_path = folder / "report.json";
      if (!fs::is_regular_file(model_path, ec))
        throw Error(model_path.string(), 0, "",
                    "missing: the folder was not written by a dmlkit command with a report, or by one older than "
                    "report.json; run the command again");
      HtmlReport page("");
      try {
        page = HtmlReport::from_json(read_json(model_path));
      } catch (const std::invalid_argument& e) {
        throw Error(model_path.string(), 0, "", e.what());
      } catch (const json::exception& e) {  // a field of a type from_json does not check
        throw Error(model_path.string(), 0, "", std::string("not a dmlkit report.json: ") + e.what());
      }
      // The footer names the run's own command line; a results.json without one (a library caller)
      // gives a page without the footer, never this `dmlkit report` command line.
      json invocation;
      if (fs::is_regular_file(folder / "results.json", ec)) {
        const json res = read_json(folder / "results.json");
        if (res.is_object() && res.contains("invocation")) {
          invocation = res["invocation"];
          check_invocation_json(invocation, (folder / "results.json").string());
        }
      }
      page.set_invocation(invocation);
      write_file_atomic((folder / "report.html").string(), page.render());
      ctx.out << "report: " << fs::absolute(folder / "report.html").lexically_normal().string() << "\n";
      return 0;
    };
  });
}

}  // namespace dmlkit::app
