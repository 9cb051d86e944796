// Sweep files: parsing, value typing, ranges, grid expansion and cell names (see sweep_file.h).
#include "sweep/sweep_file.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/yaml.h"

namespace dmlkit::sweep {

using nlohmann::ordered_json;

namespace {

// Options the runner sets itself.
const std::set<std::string> kReserved = {"out", "help", "h"};

// A scalar's typed value: plain (unquoted) integers, numbers and true/false are typed; anything
// quoted stays a string.
Value scalar_value(const YAML::Node& node) {
  Value v;
  v.text = node.Scalar();
  const bool quoted = node.Tag() == "!";
  long i = 0;
  double d = 0;
  if (!quoted && (v.text == "true" || v.text == "false")) {
    v.json = v.text == "true";
    v.flag = true;
  } else if (!quoted && parse_long(v.text, i)) {
    v.json = static_cast<int64_t>(i);
  } else if (!quoted && parse_double(v.text, d) && std::isfinite(d)) {
    v.json = d;
  } else {
    v.json = v.text;
  }
  return v;
}

Value node_value(const std::string& path, const YAML::Node& node, const std::string& field) {
  if (node.IsScalar()) {
    if (node.Scalar().empty()) throw Error(path, yaml::line_of(node), field, "empty value");
    return scalar_value(node);
  }
  if (node.IsSequence()) {  // a list value: joined with commas (--policies=fifo,srtf)
    Value v;
    for (const auto& item : node) {
      if (!item.IsScalar() || item.Scalar().empty())
        throw Error(path, yaml::line_of(item), field, "a list value holds only scalars");
      v.text += (v.text.empty() ? "" : ",") + item.Scalar();
    }
    if (v.text.empty()) throw Error(path, yaml::line_of(node), field, "empty list");
    v.json = v.text;
    return v;
  }
  throw Error(path, yaml::line_of(node), field, "expected a value or a list of values");
}

Value number_value(double x) {
  // 12 significant digits: 0.1 + 0.2 steps print as 0.3, not 0.30000000000000004.
  double rounded = 0;
  parse_double(fmt::format("{:.12g}", x), rounded);
  Value v;
  if (rounded == std::floor(rounded) && std::fabs(rounded) < 9e15) {
    v.json = static_cast<int64_t>(rounded);
    v.text = std::to_string(static_cast<int64_t>(rounded));
  } else {
    v.json = rounded;
    v.text = fmt::format("{}", rounded);
  }
  return v;
}

std::vector<Value> range_values(const std::string& path, const YAML::Node& node, const std::string& field) {
  yaml::check_keys(path, node, {"from", "to", "step", "count", "factor", "unit"});
  if (!node["from"] || !node["to"])
    throw Error(path, yaml::line_of(node), field, "a range needs from and to (and step, count or factor)");
  const double from = yaml::number(path, node["from"], field + ".from");
  const double to = yaml::number(path, node["to"], field + ".to");
  if (!(to >= from)) throw Error(path, yaml::line_of(node["to"]), field + ".to", "must be >= from");
  const int given = (node["step"] ? 1 : 0) + (node["count"] ? 1 : 0) + (node["factor"] ? 1 : 0);
  if (given > 1) throw Error(path, yaml::line_of(node), field, "give one of step, count and factor");
  std::vector<Value> out;
  auto push = [&](double x) {
    if (out.size() >= kMaxCells) throw Error(path, yaml::line_of(node), field, "more than 100000 values");
    out.push_back(number_value(x));
  };
  if (node["count"]) {
    const long count = yaml::integer(path, node["count"], field + ".count", 1, static_cast<long>(kMaxCells));
    if (count == 1 && to != from)
      throw Error(path, yaml::line_of(node["count"]), field + ".count", "count 1 needs from == to");
    for (long i = 0; i < count; ++i) push(count == 1 ? from : from + (to - from) * static_cast<double>(i) / static_cast<double>(count - 1));
  } else if (node["factor"]) {
    const double factor = yaml::number(path, node["factor"], field + ".factor");
    if (!(factor > 1)) throw Error(path, yaml::line_of(node["factor"]), field + ".factor", "must be > 1");
    if (!(from > 0)) throw Error(path, yaml::line_of(node["from"]), field + ".from", "a geometric range starts above 0");
    for (double x = from; x <= to * (1 + 1e-9); x *= factor) push(x);
  } else {
    const double step = node["step"] ? yaml::number(path, node["step"], field + ".step") : 1.0;
    if (!(step > 0)) throw Error(path, yaml::line_of(node["step"]), field + ".step", "must be > 0");
    const double n = std::floor((to - from) / step + 1e-9);
    if (n + 1 > static_cast<double>(kMaxCells)) throw Error(path, yaml::line_of(node), field, "more than 100000 values");
    for (long i = 0; i <= static_cast<long>(n); ++i) push(from + step * static_cast<double>(i));
  }
  return out;
}

// Appends `unit` to the text of every number of `values` (the JSON value stays the number).
void apply_unit(const std::string& path, const YAML::Node& node, const std::string& field, std::vector<Value>& values) {
  if (!node["unit"]) return;
  const std::string unit = yaml::string(path, node["unit"], field + ".unit");
  for (auto& v : values) {
    if (!v.json.is_number())
      throw Error(path, yaml::line_of(node["unit"]), field + ".unit", "'" + v.text + "' is not a number to give a unit");
    v.text += unit;
  }
}

// The names of the templates {name} in `text`.
std::vector<std::string> template_names(const std::string& text) {
  std::vector<std::string> out;
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    const size_t close = text.find('}', open);
    if (close == std::string::npos) break;
    const std::string name = text.substr(open + 1, close - open - 1);
    bool word = !name.empty();
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) word = false;
    if (word) out.push_back(name);
  }
  return out;
}

void check_name(const std::string& path, const std::string& name, long line, const std::string& section) {
  if (name.empty()) throw Error(path, line, section, "empty name");
  if (kReserved.count(name))
    throw Error(path, line, section + "." + name, "set by dmlkit sweep itself (every cell gets --out CELLDIR)");
  if (name[0] == '-')
    throw Error(path, line, section + "." + name, "write option names without dashes ('" +
                                                      name.substr(name.find_first_not_of('-')) + "')");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      throw Error(path, line, section + "." + name, "not an option or knob name");
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

SweepFile parse_sweep_file(const std::string& text, const std::string& path) {
  const YAML::Node root = yaml::load(text, path);
  if (!root.IsMap()) throw Error(path, yaml::line_of(root), "", "a sweep file is a mapping (command, args, axes)");
  yaml::check_keys(path, root, {"command", "args", "axes", "knob_option", "spread_over", "description"});
  SweepFile f;
  f.path = path;
  if (!root["command"]) throw Error(path, 0, "command", "missing (e.g. command: cluster simulate)");
  const std::string command = yaml::string(path, root["command"], "command");
  f.command_line = yaml::line_of(root["command"]);
  for (size_t pos = 0; pos < command.size();) {
    const size_t end = command.find(' ', pos);
    const std::string word = command.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (!word.empty()) {
      if (word[0] == '-')
        throw Error(path, f.command_line, "command", "only the command words; put options under args");
      f.command.push_back(word);
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (f.command.empty()) throw Error(path, f.command_line, "command", "empty");
  if (f.command[0] == "sweep") throw Error(path, f.command_line, "command", "a sweep cannot run sweeps");
  if (root["knob_option"]) {
    f.knob_option = yaml::string(path, root["knob_option"], "knob_option");
    if (f.knob_option.rfind("--", 0) != 0)
      throw Error(path, yaml::line_of(root["knob_option"]), "knob_option", "an option such as --policy-param");
  }
  std::set<std::string> seen;
  if (root["args"] && !root["args"].IsNull()) {
    if (!root["args"].IsMap()) throw Error(path, yaml::line_of(root["args"]), "args", "expected a mapping name: value");
    for (const auto& kv : root["args"]) {
      Argument a;
      a.name = kv.first.Scalar();
      a.line = yaml::line_of(kv.first);
      check_name(path, a.name, a.line, "args");
      if (!seen.insert(a.name).second) throw Error(path, a.line, "args." + a.name, "given twice");
      a.value = node_value(path, kv.second, "args." + a.name);
      f.args.push_back(std::move(a));
    }
  }
  if (root["axes"] && !root["axes"].IsNull()) {
    if (!root["axes"].IsMap()) throw Error(path, yaml::line_of(root["axes"]), "axes", "expected a mapping name: values");
    for (const auto& kv : root["axes"]) {
      Axis ax;
      ax.name = kv.first.Scalar();
      ax.line = yaml::line_of(kv.first);
      const std::string field = "axes." + ax.name;
      check_name(path, ax.name, ax.line, "axes");
      if (!seen.insert(ax.name).second)
        throw Error(path, ax.line, field, "given twice (an argument is either fixed under args or an axis)");
      const YAML::Node& v = kv.second;
      std::vector<Value> plain;
      if (v.IsMap() && v["values"]) {
        yaml::check_keys(path, v, {"values", "unit"});
        if (!v["values"].IsSequence()) throw Error(path, yaml::line_of(v["values"]), field + ".values", "expected a list");
        for (const auto& item : v["values"]) plain.push_back(node_value(path, item, field));
        apply_unit(path, v, field, plain);
      } else if (v.IsMap()) {
        plain = range_values(path, v, field);
        apply_unit(path, v, field, plain);
      } else if (v.IsSequence()) {
        size_t objects = 0;
        for (const auto& item : v) {
          if (!item.IsMap()) {
            plain.push_back(node_value(path, item, field));
            continue;
          }
          // {value: V, args: {...}}: a label axis value that sets other arguments
          ++objects;
          yaml::check_keys(path, item, {"value", "args"});
          if (!item["value"] || !item["args"] || !item["args"].IsMap())
            throw Error(path, yaml::line_of(item), field, "a value object is {value: V, args: {name: value, ...}}");
          AxisValue av;
          static_cast<Value&>(av) = node_value(path, item["value"], field + ".value");
          for (const auto& a : item["args"]) {
            Argument arg;
            arg.name = a.first.Scalar();
            arg.line = yaml::line_of(a.first);
            check_name(path, arg.name, arg.line, field + ".args");
            arg.value = node_value(path, a.second, field + ".args." + arg.name);
            av.args.push_back(std::move(arg));
          }
          ax.values.push_back(std::move(av));
        }
        if (objects > 0 && !plain.empty())
          throw Error(path, yaml::line_of(v), field, "either every value is {value, args} or none is");
        ax.label = objects > 0;
      } else {
        throw Error(path, yaml::line_of(v), field, "expected a list of values or a range {from, to, step}");
      }
      for (auto& p : plain) {
        AxisValue av;
        static_cast<Value&>(av) = std::move(p);
        ax.values.push_back(std::move(av));
      }
      if (ax.values.empty()) throw Error(path, yaml::line_of(v), field, "no values");
      std::set<std::string> texts;
      for (const auto& val : ax.values)
        if (!texts.insert(val.text).second) throw Error(path, yaml::line_of(v), field, "value '" + val.text + "' given twice");
      f.axes.push_back(std::move(ax));
    }
  }
  // Templates: every {name} names an axis, which is then a label (substituted, not passed).
  auto use_templates = [&](const Argument& a) {
    for (const auto& name : template_names(a.value.text)) {
      auto it = std::find_if(f.axes.begin(), f.axes.end(), [&](const Axis& ax) { return ax.name == name; });
      if (it == f.axes.end())
        throw Error(path, a.line, a.name, "the template {" + name + "} names no axis");
      it->label = true;
    }
  };
  for (const auto& a : f.args) use_templates(a);
  for (const auto& ax : f.axes)
    for (const auto& v : ax.values)
      for (const auto& a : v.args) use_templates(a);
  if (root["spread_over"]) {
    const YAML::Node& so = root["spread_over"];
    if (!so.IsSequence()) throw Error(path, yaml::line_of(so), "spread_over", "expected a list of axis names");
    for (const auto& item : so) {
      const std::string name = yaml::string(path, item, "spread_over");
      if (std::none_of(f.axes.begin(), f.axes.end(), [&](const Axis& ax) { return ax.name == name; }))
        throw Error(path, yaml::line_of(item), "spread_over", "'" + name + "' is not an axis");
      f.spread_over.push_back(name);
    }
  } else if (std::any_of(f.axes.begin(), f.axes.end(), [](const Axis& ax) { return ax.name == "seed"; })) {
    f.spread_over.push_back("seed");
  }
  if (grid_size(f) > kMaxCells)
    throw Error(path, 0, "axes", "the grid has " + std::to_string(grid_size(f)) + " cells (at most 100000)");
  return f;
}

SweepFile load_sweep_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path, 0, "", "cannot open file (a folder)");
  return parse_sweep_file(read_text_file(path), path);
}

size_t grid_size(const SweepFile& file) {
  size_t n = 1;  // saturating: a huge grid is reported, not wrapped around
  for (const auto& ax : file.axes) {
    const size_t k = ax.values.size();
    if (k != 0 && n > SIZE_MAX / k) return SIZE_MAX;
    n *= k;
  }
  return n;
}

std::string cell_name(const std::vector<std::pair<std::string, std::string>>& values) {
  if (values.empty()) return "base";
  auto sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::string full, name;
  for (const auto& [k, v] : sorted) {
    full += k + "=" + v + "\n";
    name += (name.empty() ? "" : "__") + k + "=" + v;
  }
  for (char& c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-' || c == '='))
      c = '_';
  if (name[0] == '.') name[0] = '_';
  if (name.size() > 120) name = name.substr(0, 120) + fmt::format("~{:016x}", fnv1a(full));
  return name;
}

namespace {

// `text` with every {axis} replaced by the cell's value of that axis.
std::string substitute(std::string text, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    const std::string key = "{" + name + "}";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

void append_arg(std::vector<std::string>& argv, const SweepFile& f, const std::string& name, const Value& v,
                const std::vector<std::pair<std::string, std::string>>& values) {
  const std::string text = substitute(v.text, values);
  if (name.find('.') != std::string::npos) {
    argv.push_back(f.knob_option);
    argv.push_back(name + "=" + text);
    return;
  }
  if (v.flag) {
    if (v.json.get<bool>()) argv.push_back("--" + name);
    return;
  }
  argv.push_back("--" + name + "=" + text);
}

}  // namespace

std::vector<Cell> expand(const SweepFile& f) {
  const size_t n = grid_size(f);
  std::vector<Cell> cells;
  cells.reserve(n);
  std::vector<size_t> at(f.axes.size(), 0);
  for (size_t index = 0; index < n; ++index) {
    Cell c;
    c.index = index;
    c.argv = f.command;
    std::vector<std::pair<std::string, std::string>> named;
    for (size_t k = 0; k < f.axes.size(); ++k) {
      const Value& v = f.axes[k].values[at[k]];
      c.values[f.axes[k].name] = v.json;
      named.emplace_back(f.axes[k].name, v.text);
    }
    for (const auto& a : f.args) append_arg(c.argv, f, a.name, a.value, named);
    for (size_t k = 0; k < f.axes.size(); ++k) {
      const Axis& ax = f.axes[k];
      const AxisValue& v = ax.values[at[k]];
      for (const auto& a : v.args) append_arg(c.argv, f, a.name, a.value, named);
      if (!ax.label) append_arg(c.argv, f, ax.name, v, named);
    }
    c.name = cell_name(named);
    cells.push_back(std::move(c));
    for (size_t k = f.axes.size(); k-- > 0;) {  // odometer: the last axis fastest
      if (++at[k] < f.axes[k].values.size()) break;
      at[k] = 0;
    }
  }
  // Two value texts that differ only in characters replaced by '_' would share a folder.
  std::set<std::string> names;
  for (const auto& c : cells)
    if (!names.insert(c.name).second)
      throw Error(f.path, 0, "axes", "two cells get the same folder name '" + c.name + "' (values differ only in special characters)");
  return cells;
}

}  // namespace dmlkit::sweep
