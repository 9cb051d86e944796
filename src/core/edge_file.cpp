// The graph edge-file reader of gnn and influence (edge_file.h).
#include "core/edge_file.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string_view>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit {
namespace {

struct Line {
  long number;
  std::vector<std::string_view> fields;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The data lines of `text` (comments and blank lines dropped), each split into fields.
std::vector<Line> data_lines(std::string_view text) {
  std::vector<Line> lines;
  long number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    Line l{number, {}};
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && is_space(line[i])) ++i;
      if (i >= line.size()) break;
      size_t j = i;
      while (j < line.size() && !is_space(line[j])) ++j;
      l.fields.push_back(line.substr(i, j - i));
      i = j;
    }
    if (l.fields.empty() || l.fields[0].front() == '#' || l.fields[0].front() == '%') continue;
    lines.push_back(std::move(l));
  }
  return lines;
}

bool whole_number(std::string_view s, uint64_t& v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

uint64_t parse_count(std::string_view s, const std::string& path, long line, const char* field) {
  uint64_t v = 0;
  if (!whole_number(s, v))
    throw Error(path, line, field, "expected a non-negative integer count, got '" + std::string(s) + "'");
  return v;
}

bool looks_like_header(const std::vector<Line>& lines) {
  if (lines.empty() || lines[0].fields.size() != 2) return false;
  uint64_t nodes = 0, edges = 0;
  if (!whole_number(lines[0].fields[0], nodes) || !whole_number(lines[0].fields[1], edges) || nodes == 0) return false;
  return edges == lines.size() - 1 || (lines.size() > 1 && lines[1].fields.size() == 3);
}

// What the ids of a file may reach (see edge_file.h): ids < the returned node count.
uint64_t node_limit(const EdgeFileOptions& o, size_t edge_lines) {
  const uint64_t by_default = kEdgeFileFreeNodes + 2 * static_cast<uint64_t>(edge_lines);
  return std::min(o.max_nodes > 0 ? o.max_nodes : by_default, o.hard_max_nodes);
}

std::string limit_reason(const EdgeFileOptions& o, uint64_t limit, size_t edge_lines) {
  if (limit == o.hard_max_nodes) return "at most " + std::to_string(limit) + " nodes";
  if (o.max_nodes > 0) return "at most " + std::to_string(limit) + " nodes (--max-nodes)";
  return "at most " + std::to_string(limit) + " nodes for " + std::to_string(edge_lines) + " edge lines (" +
         std::to_string(kEdgeFileFreeNodes) + " + 2 per edge line; --max-nodes N allows more)";
}

class EdgeParser {
 public:
  EdgeParser(const std::string& path, const EdgeFileOptions& o) : path_(path), o_(o) {}

  EdgeFile parse(const std::vector<Line>& lines) {
    const bool header =
        o_.format == EdgeFileFormat::Header || (o_.format == EdgeFileFormat::Auto && looks_like_header(lines));
    const size_t first = header ? 1 : 0;
    const size_t edge_lines = lines.size() - first;
    limit_ = node_limit(o_, edge_lines);
    reason_ = limit_reason(o_, limit_, edge_lines);
    if (header) read_header(lines);
    if (!header && o_.declared_nodes > 0) declare(o_.declared_nodes, lines[0].number, "nodes");
    out_.src.reserve(edge_lines);
    out_.dst.reserve(edge_lines);
    uint64_t max_id = 0;
    for (size_t i = first; i < lines.size(); ++i) max_id = std::max(max_id, edge(lines[i], i == first));
    if (declared_nodes_ == 0) out_.nodes = edge_lines == 0 ? 0 : max_id + 1;
    if (out_.nodes == 0) throw Error(path_, 0, "", "the graph has no nodes");
    return std::move(out_);
  }

 private:
  void read_header(const std::vector<Line>& lines) {
    const Line& h = lines[0];
    if (h.fields.size() != 2)
      throw Error(path_, h.number, "header",
                  "expected '<nodes> <edges>', got " + std::to_string(h.fields.size()) + " fields");
    const uint64_t nodes = parse_count(h.fields[0], path_, h.number, "nodes");
    const uint64_t declared_edges = parse_count(h.fields[1], path_, h.number, "edges");
    const size_t found = lines.size() - 1;
    if (found != declared_edges)
      throw Error(
          path_, found > declared_edges ? lines[1 + declared_edges].number : h.number, "edges",
          "the header declares " + std::to_string(declared_edges) + " edges, the file has " + std::to_string(found));
    if (nodes == 0) throw Error(path_, h.number, "nodes", "the header declares no nodes");
    declare(nodes, h.number, "nodes");
  }

  void declare(uint64_t nodes, long line, const char* field) {
    if (nodes > limit_) throw Error(path_, line, field, "declares " + std::to_string(nodes) + " nodes: " + reason_);
    declared_nodes_ = nodes;
    out_.nodes = nodes;
  }

  uint64_t id(std::string_view s, long line, const char* field) const {
    uint64_t v = 0;
    if (!whole_number(s, v))
      throw Error(path_, line, field, "expected a node id (a whole number >= 0), got '" + std::string(s) + "'");
    if (declared_nodes_ > 0 && v >= declared_nodes_)
      throw Error(path_, line, field,
                  "node id " + std::string(s) + " is outside 0.." + std::to_string(declared_nodes_ - 1) +
                      " (the declared node count)");
    if (v >= limit_) throw Error(path_, line, field, "node id " + std::string(s) + " is too large: " + reason_);
    return v;
  }

  // Reads one edge line; returns its larger id.
  uint64_t edge(const Line& l, bool first) {
    const size_t nf = l.fields.size();
    if (nf != 2 && nf != 3)
      throw Error(path_, l.number, "",
                  "expected 'u v' or 'u v " + o_.third_field + "', got " + std::to_string(nf) + " fields");
    if (first) with_third_ = nf == 3;
    if ((nf == 3) != with_third_)
      throw Error(path_, l.number, o_.third_field,
                  with_third_ ? "missing (earlier edges have one)" : "unexpected (earlier edges have none)");
    const uint64_t u = id(l.fields[0], l.number, "source"), v = id(l.fields[1], l.number, "target");
    out_.src.push_back(static_cast<uint32_t>(u));
    out_.dst.push_back(static_cast<uint32_t>(v));
    if (with_third_) out_.third.push_back(third(l.fields[2], l.number));
    return std::max(u, v);
  }

  double third(std::string_view s, long line) const {
    double x = 0;
    if (!parse_double(s, x))
      throw Error(path_, line, o_.third_field, "expected a number, got '" + std::string(s) + "'");
    if (x < o_.third_min || x > o_.third_max)
      throw Error(path_, line, o_.third_field,
                  std::string(s) + " is outside [" + fixed_text(o_.third_min) + ", " + fixed_text(o_.third_max) + "]");
    return x;
  }

  static std::string fixed_text(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  const std::string& path_;
  const EdgeFileOptions& o_;
  uint64_t limit_ = 0, declared_nodes_ = 0;
  std::string reason_;
  bool with_third_ = false;
  EdgeFile out_;
};

}  // namespace

EdgeFileFormat parse_edge_file_format(const std::string& name) {
  if (name == "auto") return EdgeFileFormat::Auto;
  if (name == "header") return EdgeFileFormat::Header;
  if (name == "edges") return EdgeFileFormat::Edges;
  throw Error("--graph-format: expected auto, header or edges, got '" + name + "'");
}

EdgeFile parse_edge_file(const std::string& text, const std::string& path, const EdgeFileOptions& options) {
  const std::vector<Line> lines = data_lines(text);
  if (lines.empty()) throw Error(path, 0, "", "the graph file has no data lines");
  return EdgeParser(path, options).parse(lines);
}

EdgeFile read_edge_file(const std::string& path, const EdgeFileOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path, 0, "graph", "no such graph file");
  return parse_edge_file(read_text_file(path), path, options);
}

}  // namespace dmlkit
