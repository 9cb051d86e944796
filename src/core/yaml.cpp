#include "core/yaml.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <vector>
#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

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

long line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }

// Refuses a mapping that names a key twice: yaml-cpp keeps both entries and every lookup finds the
// first, so the second would be silently ignored. Runs on the parser's events, where an alias is
// one event (a document of nested aliases is never expanded).
class DuplicateKeyCheck : public YAML::EventHandler {
 public:
  explicit DuplicateKeyCheck(const std::string& path) : path_(path) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { node(nullptr, {}); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { node(nullptr, {}); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    node(&value, mark);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(nullptr, {});
    frames_.push_back({false, true, {}});
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(nullptr, {});
    frames_.push_back({true, true, {}});
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool mapping;
    bool at_key;                       // the next node of a mapping is a key
    std::map<std::string, long> keys;  // scalar key -> its line
  };

  // A node starts: in a mapping, keys and values alternate; a scalar key must be new.
  void node(const std::string* scalar, const YAML::Mark& mark) {
    if (frames_.empty() || !frames_.back().mapping) return;
    Frame& f = frames_.back();
    const bool key = f.at_key;
    f.at_key = !f.at_key;
    if (!key || scalar == nullptr) return;
    const long line = line_of(mark);
    const auto [it, added] = f.keys.emplace(*scalar, line);
    if (!added)
      throw Error(path_, line, *scalar,
                  "duplicate key (first on line " + std::to_string(it->second) +
                      "); YAML would silently keep the first, so give each key once");
  }

  const std::string& path_;
  std::vector<Frame> frames_;
};

void check_duplicate_keys(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DuplicateKeyCheck check(path);
  parser.HandleNextDocument(check);  // YAML::Load reads the first document only
}

}  // namespace

YAML::Node load(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(path, line_of(e.mark), "", "invalid YAML: " + e.msg);
  }
  check_duplicate_keys(text, path);
  return root;
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
      throw Error(path, line_of(kv.first), key,
                  "unknown field (known: " + fmt::to_string(fmt::join(known, ", ")) + ")");
    }
  }
}

}  // namespace dmlkit::yaml
