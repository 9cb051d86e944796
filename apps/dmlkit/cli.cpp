#include "dmlkit/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "core/data_dir.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/suggest.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"

namespace dmlkit::app {
namespace {

// Before any work: the --out folder of the chosen command must be one dmlkit may replace
// (core/output_dir.h). Its inputs are every other option value (or comma-separated part of one)
// that names an existing file or folder, and the bundled data folder.
void check_output_folder(CLI::App& app) {
  for (CLI::App* sub = &app; sub != nullptr;) {
    CLI::Option* out_opt = nullptr;
    std::vector<std::string> inputs{default_data_dir()};
    for (CLI::Option* opt : sub->get_options()) {
      if (opt->check_lname("out")) {
        out_opt = opt;
        continue;
      }
      std::vector<std::string> values = opt->results();
      if (opt->count() == 0 && !opt->get_default_str().empty()) values = {opt->get_default_str()};
      for (const auto& v : values) {
        std::stringstream parts(v);
        for (std::string part; std::getline(parts, part, ',');) {
          std::error_code ec;
          if (!part.empty() && std::filesystem::exists(part, ec)) inputs.push_back(part);
        }
      }
    }
    if (out_opt != nullptr) {
      const std::string out = out_opt->count() > 0 ? out_opt->results().front() : out_opt->get_default_str();
      if (!out.empty()) check_output_target(out, inputs);
    }
    const auto chosen = sub->get_subcommands();
    sub = chosen.empty() ? nullptr : chosen.front();
  }
}

// A parse error explained with the closest names: an unknown subcommand (CLI11 says only "A
// subcommand is required") or an unknown option ("The following arguments were not expected").
std::string explain_parse_error(const CLI::App& app, int argc, const char* const* argv, const std::string& what) {
  const CLI::App* at = &app;
  std::string path = "dmlkit";
  int i = 1;
  for (; i < argc; ++i) {
    const std::string tok = argv[i];
    if (tok.rfind("-", 0) == 0) break;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
      if (sub->check_name(tok)) next = sub;
    if (next == nullptr) break;
    at = next;
    path += " " + tok;
  }
  std::vector<std::string> subs;
  for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; })) subs.push_back(sub->get_name());
  if (i < argc && std::string(argv[i]).rfind("-", 0) != 0 && !subs.empty()) {
    std::string list;
    for (const auto& n : subs) list += (list.empty() ? "" : ", ") + n;
    return "unknown command '" + std::string(argv[i]) + "' for " + path + did_you_mean(argv[i], subs) +
           " (commands: " + list + ")";
  }
  if (what.find("not expected") != std::string::npos || what.find("not match") != std::string::npos) {
    std::vector<std::string> opts;
    for (const CLI::Option* o : at->get_options())
      for (const auto& n : o->get_lnames()) opts.push_back("--" + n);
    for (int k = i; k < argc; ++k) {
      std::string tok = argv[k];
      if (tok.rfind("--", 0) != 0) continue;
      tok = tok.substr(0, tok.find('='));
      if (std::find(opts.begin(), opts.end(), tok) != opts.end()) continue;
      return "unknown option '" + tok + "' for " + path + did_you_mean(tok, opts) + " (see " + path + " --help)";
    }
  }
  return what;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"dmlkit: the systems side of distributed machine learning"};
  app.set_version_flag("--version", std::string("dmlkit ") + DMLKIT_VERSION);
  app.require_subcommand(1);
  Context ctx{out, err, {}, {}};
  add_cluster_commands(app, ctx);
  add_comm_commands(app, ctx);
  add_ps_commands(app, ctx);
  add_gnn_commands(app, ctx);
  add_influence_commands(app, ctx);
  add_continual_commands(app, ctx);
  reject_negative_unsigned(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << "dmlkit " << DMLKIT_VERSION << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // Help for a subcommand is raised from inside it; print the help of the one that asked.
    if (e.get_exit_code() == 0) {
      out << e.what();
      return 0;
    }
    err << "dmlkit: " << explain_parse_error(app, argc, argv, e.what()) << "\n";
    return 2;
  }
  try {
    check_output_folder(app);
    return ctx.run ? ctx.run() : 0;
  } catch (const Error& e) {
    err << "dmlkit: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "dmlkit: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace dmlkit::app
