// The one way dmlkit reads YAML (and JSON) files: yaml-cpp (Debian libyaml-cpp-dev) behind a few
// helpers whose errors are dmlkit::Error naming file, line and field, so a bad value is one line
// and exit status 2. Files are read with read_text_file, so a BOM and CRLF line ends are accepted.
#pragma once
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

namespace dmlkit::yaml {

// Parses `path`. Error(path, 0, "", "cannot open file") if it cannot be read,
// Error(path, line, "", "invalid YAML: ...") on a syntax error, Error(path, line, key, "duplicate
// key ...") for a mapping that gives a key twice (anywhere in the document: every reader of presets,
// sweep files, cluster files refuses it, where yaml-cpp alone would keep the first).
YAML::Node load_file(const std::string& path);
// Parses `text` as if it were the file `path`.
YAML::Node load(const std::string& text, const std::string& path);

// 1-based line of `node` in its file (0 if unknown, e.g. a missing node).
long line_of(const YAML::Node& node);

// A finite number; Error(path, line, field, "not a number: '...'") otherwise.
double number(const std::string& path, const YAML::Node& node, const std::string& field);
// As number(), and lo <= value <= hi: Error "out of range: v (allowed lo..hi)" otherwise.
double number(const std::string& path, const YAML::Node& node, const std::string& field, double lo, double hi);
// A whole number in [lo, hi]; Error "not an integer" / "out of range" otherwise (a negative value
// never wraps around).
long integer(const std::string& path, const YAML::Node& node, const std::string& field, long lo, long hi);
// A non-empty scalar.
std::string string(const std::string& path, const YAML::Node& node, const std::string& field);
// true/false (also yes/no, on/off as YAML 1.1 has them).
bool boolean(const std::string& path, const YAML::Node& node, const std::string& field);
// Every key of the mapping `map` is in `known`: Error(path, line, key, "unknown field (known: ...)")
// otherwise.
void check_keys(const std::string& path, const YAML::Node& map, const std::set<std::string>& known);

}  // namespace dmlkit::yaml
