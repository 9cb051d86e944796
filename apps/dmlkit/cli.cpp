#include "dmlkit/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "core/data_dir.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/provenance.h"
#include "core/suggest.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/python_plugin.h"

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

// Before any work: a --data-dir given on the command line must be an existing folder (every
// command that takes one would otherwise fail later on the first file it reads, with that file's
// name instead of the option's).
void check_data_dir(CLI::App& app) {
  for (CLI::App* sub = &app; sub != nullptr;) {
    for (CLI::Option* opt : sub->get_options()) {
      if (!opt->check_lname("data-dir") || opt->count() == 0) continue;
      const std::string dir = opt->results().front();
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) throw Error("--data-dir: no such folder: " + dir);
    }
    const auto chosen = sub->get_subcommands();
    sub = chosen.empty() ? nullptr : chosen.front();
  }
}

// The subcommand of `at` named `name` (or an alias), or nullptr; and every subcommand's name.
const CLI::App* find_subcommand(const CLI::App& at, std::string_view name) {
  for (const CLI::App* sub : at.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(std::string(name))) return sub;
  return nullptr;
}

std::vector<std::string> subcommand_names(const CLI::App& at) {
  std::vector<std::string> out;
  for (const CLI::App* sub : at.get_subcommands([](const CLI::App*) { return true; })) out.push_back(sub->get_name());
  return out;
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
    const CLI::App* next = find_subcommand(*at, tok);
    if (next == nullptr) break;
    at = next;
    path += " " + tok;
  }
  const std::vector<std::string> subs = subcommand_names(*at);
  if (i < argc && std::string(argv[i]).rfind("-", 0) != 0 && !subs.empty()) {
    std::string list;
    for (const auto& n : subs) list += (list.empty() ? "" : ", ") + n;
    return "unknown command '" + std::string(argv[i]) + "' for " + path + did_you_mean(argv[i], subs) +
           " (commands: " + list + ")";
  }
  // An option where a command was expected ("dmlkit --verison"): CLI11 only says a subcommand is
  // required.
  const bool option_for_command = i < argc && std::string(argv[i]).rfind("--", 0) == 0 && !subs.empty();
  if (what.find("not expected") != std::string::npos || what.find("not match") != std::string::npos ||
      option_for_command) {
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

// CLI11's own messages in dmlkit's style, "<option>: <message>" (issue 20): "Could not convert:
// --round = abc" becomes "--round: cannot read 'abc' as a number", "A is required" becomes "A:
// required (see dmlkit diff --help)", "--workload: 1 required TEXT missing" becomes "--workload:
// needs a value (TEXT)".
std::string dmlkit_style(const CLI::ParseError& e, const std::string& explained, const std::string& path) {
  std::string what = explained;
  if (what.rfind(": ", 0) == 0) what.erase(0, 2);  // a validator's message of an option without a name
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    const std::string prefix = "Could not convert: ";
    const size_t eq = what.find(" = ");
    if (what.rfind(prefix, 0) == 0 && eq != std::string::npos)
      return what.substr(prefix.size(), eq - prefix.size()) + ": cannot read '" + what.substr(eq + 3) +
             "' as a value of this option (see " + path + " --help)";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    const std::string suffix = " is required";
    if (what.size() > suffix.size() && what.compare(what.size() - suffix.size(), suffix.size(), suffix) == 0)
      return what.substr(0, what.size() - suffix.size()) + ": required (see " + path + " --help)";
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const size_t colon = what.find(": ");
    const size_t req = what.find(" required ");
    const size_t missing = what.rfind(" missing");
    if (colon != std::string::npos && req != std::string::npos && missing != std::string::npos && req < missing)
      return what.substr(0, colon) + ": needs a value (" + what.substr(req + 10, missing - req - 10) + ")";
  }
  return what;
}

// The command path the arguments name ("dmlkit cluster simulate"), for "see ... --help".
std::string command_path(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  std::string path = "dmlkit";
  for (int i = 1; i < argc; ++i) {
    const CLI::App* next = find_subcommand(*at, argv[i]);
    if (next == nullptr) continue;
    at = next;
    path += " " + next->get_name();
  }
  return path;
}

// Every command family on one app.
void build_app(CLI::App& app, Context& ctx) {
  app.set_version_flag("--version", std::string("dmlkit ") + DMLKIT_VERSION);
  app.require_subcommand(1);
  add_cluster_commands(app, ctx);
  add_comm_commands(app, ctx);
  add_ps_commands(app, ctx);
  add_gnn_commands(app, ctx);
  add_influence_commands(app, ctx);
  add_continual_commands(app, ctx);
  add_football_commands(app, ctx);
  add_sweep_commands(app, ctx);
  add_tools_commands(app, ctx);
  reject_negative_unsigned(app);
}

// The Python files (FILE.py:CLASS) the parsed command line names, over the chosen subcommands.
std::vector<std::string> python_files_given(const CLI::App& app) {
  std::vector<std::string> specs;
  for (const CLI::App* sub = &app; sub != nullptr;) {
    for (const CLI::Option* opt : sub->get_options())
      for (const char* name : kPythonFileOptions)
        if (opt->check_lname(name))
          for (const auto& v : opt->results()) specs.push_back(v);
    const auto chosen = sub->get_subcommands();
    sub = chosen.empty() ? nullptr : chosen.front();
  }
  return specs;
}

}  // namespace

int check_cli(const std::vector<std::string>& args, std::string& error, UserCode code) {
  std::ostringstream out, err;
  CLI::App app{"dmlkit"};
  Context ctx{out, err, {}, {}, false, {}};
  build_app(app, ctx);
  std::vector<const char*> argv{"dmlkit"};
  for (const auto& a : args) argv.push_back(a.c_str());
  const int argc = static_cast<int>(argv.size());
  try {
    app.parse(argc, argv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      error = "asks for help or the version instead of running";
      return 2;
    }
    error =
        dmlkit_style(e, explain_parse_error(app, argc, argv.data(), e.what()), command_path(app, argc, argv.data()));
    return 2;
  } catch (const std::exception& e) {  // a callback rejecting a combination of options
    error = e.what();
    return 2;
  }
  try {
    check_data_dir(app);
    if (!ctx.own_output_check) check_output_folder(app);
    const std::vector<std::string> python_files = python_files_given(app);
    if (code == UserCode::Never && !python_files.empty()) {
      // Loading a Python file runs it: only what can be checked without running it.
      for (const auto& spec : python_files) check_python_spec(spec);
      return 0;
    }
    if (ctx.validate) ctx.validate();
    return 0;
  } catch (const std::exception& e) {
    error = e.what();
    return 2;
  }
}

bool command_options(const std::vector<std::string>& words, std::vector<std::string>& options) {
  std::ostringstream out, err;
  CLI::App app{"dmlkit"};
  Context ctx{out, err, {}, {}, false, {}};
  build_app(app, ctx);
  const CLI::App* at = &app;
  for (const auto& w : words) {
    const CLI::App* next = find_subcommand(*at, w);
    if (next == nullptr) {
      options = subcommand_names(*at);
      return false;
    }
    at = next;
  }
  options.clear();
  for (const CLI::Option* o : at->get_options())
    for (const auto& n : o->get_lnames()) options.push_back(n);
  // A command that needs a subcommand ("cluster") is not one a cell can run.
  if (at->get_require_subcommand_min() > 0) {
    options = subcommand_names(*at);
    return false;
  }
  return true;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // Named "dmlkit", so usage lines say "dmlkit cluster ..." and never the program's path (a build
  // or install folder).
  CLI::App app{"dmlkit: the systems side of distributed machine learning", "dmlkit"};
  Context ctx{out, err, {}, {}, false, {}};
  build_app(app, ctx);
  begin_invocation(std::vector<std::string>(argv, argv + argc));  // core/provenance.h
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
    err << "dmlkit: " << dmlkit_style(e, explain_parse_error(app, argc, argv, e.what()), command_path(app, argc, argv))
        << "\n";
    return 2;
  } catch (const Error& e) {  // a subcommand's callback rejecting a combination of options
    err << "dmlkit: " << e.what() << "\n";
    return e.exit_status();
  }
  try {
    check_data_dir(app);
    if (!ctx.own_output_check) check_output_folder(app);
    return ctx.run ? ctx.run() : 0;
  } catch (const Error& e) {
    err << "dmlkit: " << e.what() << "\n";
    return e.exit_status();  // 2: bad input; 3: the environment failed (disk full, I/O, permission)
  } catch (const std::filesystem::filesystem_error& e) {
    // A file-system call without its own message: a full disk or a permission is the environment's.
    const bool environment = is_environment_failure(e.code());
    err << "dmlkit: " << (environment ? "" : "internal error: ") << e.what() << "\n";
    return environment ? kExitEnvironment : kExitInternal;
  } catch (const std::exception& e) {
    err << "dmlkit: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace dmlkit::app
