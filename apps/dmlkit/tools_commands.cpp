// Small tools researchers reach for (issue 20): `dmlkit diff A B` compares two runs' results.json
// (core/results_diff.h: per name and metric, the two means, the change, and whether it exceeds the
// spread over seeds); `dmlkit generate bash-completion|man` prints the completion script or the man
// page, generated from the CLI definitions (cli_docs.h).
#include <filesystem>
#include <ostream>

#include "core/results_diff.h"
#include "core/text_safety.h"
#include "dmlkit/cli_docs.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {
namespace {

struct DiffOptions {
  std::string a, b;
  std::string format = "table";
  bool changed_only = false;
};

// A results folder stands for its results.json.
std::string results_path(const std::string& p) {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec) ? (std::filesystem::path(p) / "results.json").string() : p;
}

void add_generate(CLI::App& app, Context& ctx) {
  auto& what = ctx.make<std::string>();
  auto* cmd = app.add_subcommand("generate",
                                 "Print the bash completion script or the man page of dmlkit, generated "
                                 "from the command-line definitions");
  cmd->add_option("WHAT", what, "bash-completion or man")->required()->check(CLI::IsMember({"bash-completion", "man"}));
  cmd->callback([&ctx, &what, root = &app] {
    ctx.run = [&ctx, &what, root] {
      ctx.out << (what == "man" ? man_page(*root, DMLKIT_VERSION) : bash_completion(*root));
      return 0;
    };
  });
}

}  // namespace

// `dmlkit report DIR` (report_command.cpp).
void add_report_command(CLI::App& app, Context& ctx);

void add_tools_commands(CLI::App& app, Context& ctx) {
  add_generate(app, ctx);
  add_report_command(app, ctx);
  auto& o = ctx.make<DiffOptions>();
  auto* cmd = app.add_subcommand("diff",
                                 "Compare two runs: per name and metric, both means, the change, and whether "
                                 "it exceeds the spread over seeds");
  cmd->add_option("A", o.a, "The first results.json (or its folder)")->required();
  cmd->add_option("B", o.b, "The second results.json (or its folder)")->required();
  cmd->add_option("--format", o.format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  cmd->add_flag("--changed-only", o.changed_only,
                "Only the metrics whose change exceeds the spread (or, with one "
                "run per side, that changed at all)");
  cmd->callback([&] {
    ctx.run = [&] {
      const auto a = load_results_json(results_path(o.a));
      const auto b = load_results_json(results_path(o.b));
      auto diffs = diff_results(a, b);
      if (o.changed_only)
        std::erase_if(diffs, [](const MetricDiff& d) {
          return d.verdict == "within spread" || (d.verdict == "one run" && d.change == 0);
        });
      const InputComparison inputs = diff_inputs(a, b);
      const std::string warning = inputs.workloads_differ
                                      ? "WARNING: A and B ran different workloads (" + inputs.workload_reason +
                                            "): a change below is not the effect of the policy or knob alone"
                                      : "";
      if (o.format == "json") {
        nlohmann::ordered_json j{{"inputs", input_diff_json(inputs)}, {"metrics", diff_json(diffs)}};
        ctx.out << j.dump(2) << "\n";
      } else if (o.format == "csv") {
        if (!warning.empty()) ctx.err << terminal_safe(warning) << "\n";
        ctx.out << diff_table(diffs).to_csv();
      } else {
        if (!warning.empty()) ctx.out << terminal_safe(warning) << "\n\n";
        if (inputs.differences.empty()) {
          ctx.out << "inputs: the same command, version, inputs and input files\n\n";
        } else {
          ctx.out << "inputs that differ:\n" << input_diff_table(inputs).render() << "\n";
        }
        ctx.out << diff_table(diffs).render();
        ctx.out << "change = B - A; beyond spread: |change| > 2 standard errors of the difference over seeds\n";
      }
      return 0;
    };
  });
}

}  // namespace dmlkit::app
