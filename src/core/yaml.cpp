#include "core/yaml.h"

#include <cmath>
#include <filesystem>
#include <sstream>
#include <fmt/format.h>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit::yaml {
namespace {

std::string shown(const YAML::Node& node) { return node.IsScalar() ? node.Scalar() : std::string("<not a scalar>"); }

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

YAML::Node load(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "invalid YAML: " + e.msg);
  }
}

YAML::Node load_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path, 0, "", "cannot open file (a folder)");
  return load(read_text_file(path), path);
}

long line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  const auto& m = node.Mark();
  return m.line >= 0 ? m.line + 1 : 0;
}

double number(const std::string& path, const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar()) throw Error(path, line_of(node), field, "expected a number");
  double v = 0;
  if (!parse_double(node.Scalar(), v)) throw Error(path, line_of(node), field, "not a number: '" + node.Scalar() + "'");
  return v;
}

double number(const std::string& path, const YAML::Node& node, const std::string& field, double lo, double hi) {
  const double v = number(path, node, field);
  if (!(v >= lo && v <= hi))
    throw Error(path, line_of(node), field,
                "out of range: " + node.Scalar() + " (allowed " + num(lo) + ".." + num(hi) + ")");
  return v;
}

long integer(const std::string& path, const YAML::Node& node, const std::string& field, long lo, long hi) {
  if (!node.IsScalar()) throw Error(path, line_of(node), field, "expected an integer");
  long v = 0;
  if (!parse_long(node.Scalar(), v)) throw Error(path, line_of(node), field, "not an integer: '" + node.Scalar() + "'");
  if (v < lo || v > hi)
    throw Error(
        path, line_of(node), field,
        "out of range: " + std::to_string(v) + " (allowed " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  return v;
}

std::string string(const std::string& path, const YAML::Node& node, const std::string& field) {
  if (!node.IsScalar() || node.Scalar().empty()) throw Error(path, line_of(node), field, "expected a non-empty string");
  return node.Scalar();
}

bool boolean(const std::string& path, const YAML::Node& node, const std::string& field) {
  bool v = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v))
    throw Error(path, line_of(node), field, "expected true or false, got '" + shown(node) + "'");
  return v;
}

void check_keys(const std::string& path, const YAML::Node& map, const std::set<std::string>& known) {
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (!known.count(key)) {
      throw Error(path, line_of(kv.first), key, "unknown field (known: " + fmt::to_string(fmt::join(known, ", ")) + ")");
    }
  }
}

}  // namespace dmlkit::yaml
