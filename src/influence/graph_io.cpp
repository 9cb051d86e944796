// Graph file readers: one pass over the text, fields split in place, errors naming file/line/field.
#include "influence/graph_io.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit::influence {
namespace {

// Larger node-id spaces would not fit the per-node tables of the algorithms (RSB keeps k weights
// per node); real social networks used for influence maximization are far below this.
constexpr uint64_t kMaxNodes = 50'000'000;

struct Line {
  long number;
  std::vector<std::string_view> fields;
};

// Splits `text` into data lines (comments and blank lines dropped), each into fields.
std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  long number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#' || line[first] == '%') continue;
    Line l{number, {}};
    size_t i = first;
    while (i < line.size()) {
      size_t j = line.find_first_of(" \t", i);
      if (j == std::string_view::npos) j = line.size();
      l.fields.push_back(line.substr(i, j - i));
      i = line.find_first_not_of(" \t", j);
      if (i == std::string_view::npos) break;
    }
    lines.push_back(std::move(l));
  }
  return lines;
}

uint64_t parse_id(std::string_view s, const std::string& path, long line, const char* field) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw Error(path, line, field, "expected a non-negative integer node id, got '" + std::string(s) + "'");
  if (v >= kMaxNodes)
    throw Error(path, line, field,
                "node id " + std::string(s) + " is too large (at most " + std::to_string(kMaxNodes) + " nodes)");
  return v;
}

uint64_t parse_count(std::string_view s, const std::string& path, long line, const char* field) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw Error(path, line, field, "expected a non-negative integer count, got '" + std::string(s) + "'");
  return v;
}

float parse_probability(std::string_view s, const std::string& path, long line) {
  double p = 0;
  if (!parse_double(s, p)) throw Error(path, line, "probability", "expected a number, got '" + std::string(s) + "'");
  if (p < 0.0 || p > 1.0)
    throw Error(path, line, "probability", "probability " + std::string(s) + " is outside [0, 1]");
  return static_cast<float>(p);
}

}  // namespace

GraphFormat parse_graph_format(const std::string& name) {
  if (name == "auto") return GraphFormat::Auto;
  if (name == "header") return GraphFormat::Header;
  if (name == "edges") return GraphFormat::Edges;
  throw Error("--graph-format: expected auto, header or edges, got '" + name + "'");
}

EdgeList parse_graph(const std::string& text, const std::string& path, GraphFormat format) {
  const std::vector<Line> lines = split_lines(text);
  if (lines.empty()) throw Error(path, 0, "", "the graph file has no data lines");
  if (format == GraphFormat::Auto) {
    const bool header = lines[0].fields.size() == 2 && (lines.size() == 1 || lines[1].fields.size() == 3);
    format = header ? GraphFormat::Header : GraphFormat::Edges;
  }
  EdgeList g;
  g.name = path;
  size_t first_edge = 0;
  uint64_t declared_nodes = 0, declared_edges = 0;
  if (format == GraphFormat::Header) {
    const Line& h = lines[0];
    if (h.fields.size() != 2)
      throw Error(path, h.number, "",
                  "expected a header '<nodes> <edges>', got " + std::to_string(h.fields.size()) + " fields");
    declared_nodes = parse_count(h.fields[0], path, h.number, "nodes");
    declared_edges = parse_count(h.fields[1], path, h.number, "edges");
    if (declared_nodes == 0 || declared_nodes > kMaxNodes)
      throw Error(path, h.number, "nodes", "node count must be in 1.." + std::to_string(kMaxNodes));
    first_edge = 1;
    const size_t found = lines.size() - 1;
    if (found != declared_edges)
      throw Error(
          path, found > declared_edges ? lines[first_edge + declared_edges].number : h.number, "edges",
          "the header declares " + std::to_string(declared_edges) + " edges, the file has " + std::to_string(found));
  }
  const size_t m = lines.size() - first_edge;
  g.src.reserve(m);
  g.dst.reserve(m);
  bool with_prob = false;
  uint64_t max_id = 0;
  for (size_t i = first_edge; i < lines.size(); ++i) {
    const Line& l = lines[i];
    const size_t nf = l.fields.size();
    if (nf != 2 && nf != 3)
      throw Error(path, l.number, "", "expected 'source target [probability]', got " + std::to_string(nf) + " fields");
    if (i == first_edge) with_prob = nf == 3;
    if ((nf == 3) != with_prob)
      throw Error(path, l.number, "probability",
                  with_prob ? "missing (earlier edges have one)" : "unexpected (earlier edges have none)");
    const uint64_t u = parse_id(l.fields[0], path, l.number, "source");
    const uint64_t v = parse_id(l.fields[1], path, l.number, "target");
    if (format == GraphFormat::Header) {
      if (u >= declared_nodes)
        throw Error(path, l.number, "source",
                    "node id " + std::to_string(u) + " is outside 0.." + std::to_string(declared_nodes - 1) +
                        " declared by the header");
      if (v >= declared_nodes)
        throw Error(path, l.number, "target",
                    "node id " + std::to_string(v) + " is outside 0.." + std::to_string(declared_nodes - 1) +
                        " declared by the header");
    }
    max_id = std::max({max_id, u, v});
    g.src.push_back(static_cast<NodeId>(u));
    g.dst.push_back(static_cast<NodeId>(v));
    if (with_prob) g.prob.push_back(parse_probability(l.fields[2], path, l.number));
  }
  g.num_nodes = format == GraphFormat::Header ? static_cast<uint32_t>(declared_nodes)
                                              : static_cast<uint32_t>(m == 0 ? 0 : max_id + 1);
  if (g.num_nodes == 0) throw Error(path, 0, "", "the graph has no nodes");
  return g;
}

EdgeList read_graph(const std::string& path, GraphFormat format) {
  return parse_graph(read_text_file(path), path, format);
}

}  // namespace dmlkit::influence
