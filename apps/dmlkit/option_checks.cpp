#include "dmlkit/option_checks.h"

#include <cmath>
#include <sstream>

#include "core/csv.h"

namespace dmlkit::app {
namespace {

std::string num(double v) {
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
  return check(">= " + num(lo), [lo](double v) { return v >= lo; });
}

CLI::Validator above(double lo) {
  return check("> " + num(lo), [lo](double v) { return v > lo; });
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

}  // namespace dmlkit::app
