#include "dmlkit/option_checks.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"

namespace dmlkit::app {
namespace {

std::string bound_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A validator without a name or description, so --help stays as it is.
CLI::Validator check(const std::string& expected, std::function<bool(double)> ok) {
  return CLI::Validator(
      [expected, ok](std::string& input) -> std::string {
        double v = 0;
        if (!parse_double(input, v)) return "expected a number, got '" + input + "'";
        if (!ok(v)) return "must be " + expected + ", got " + input;
        return {};
      },
      "", "");
}

}  // namespace

CLI::Validator at_least(double lo) {
  return check(">= " + bound_text(lo), [lo](double v) { return v >= lo; });
}

CLI::Validator above(double lo) {
  return check("> " + bound_text(lo), [lo](double v) { return v > lo; });
}

void reject_negative_unsigned(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_name() != "UINT") continue;
    opt->check(CLI::Validator(
        [](std::string& input) -> std::string {
          const size_t first = input.find_first_not_of(" \t");
          if (first != std::string::npos && input[first] == '-') return "must not be negative, got " + input;
          return {};
        },
        "", ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) reject_negative_unsigned(*sub);
}

void reject_options_given(const CLI::App& cmd, const std::vector<std::string>& allowed, const std::string& why) {
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    const std::string& name = opt->get_lnames().front();
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    throw Error("--" + name + ": " + why);
  }
}

void add_runs_option(CLI::App& cmd, int& runs, const std::string& help) {
  cmd.add_option("--runs", runs, help)->check(at_least(1))->capture_default_str();
  cmd.add_option("--seeds", "")
      ->group("")  // hidden
      ->check(CLI::Validator(
          [](std::string&) -> std::string {
            return "--seeds: is a list of seeds in dmlkit (cluster compare --experiment); the number of independent "
                   "runs "
                   "here is --runs N";
          },
          "", ""));
}

std::vector<std::string> given_options(const CLI::App& cmd, const std::string& head) {
  std::vector<std::string> out;
  std::istringstream words(head);
  for (std::string w; words >> w;) out.push_back(w);
  for (const auto* opt : cmd.get_options())
    if (opt->count() > 0 && !opt->get_lnames().empty()) {
      out.push_back("--" + opt->get_lnames()[0]);
      if (opt->get_expected_min() == 0) continue;  // a flag
      std::string v;
      for (const auto& r : opt->results()) v += (v.empty() ? "" : ",") + r;
      out.push_back(v);
    }
  return out;
}

}  // namespace dmlkit::app
