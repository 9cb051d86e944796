// The PipeDream graph reader (see pipedream_graph.h).
#include "core/pipedream_graph.h"

#include <algorithm>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <fmt/format.h>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_dashes(std::string_view line) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = line.find(" -- ", start);
    if (pos == std::string_view::npos) {
      parts.push_back(line.substr(start));
      return parts;
    }
    parts.push_back(line.substr(start, pos - start));
    start = pos + 4;
  }
}

bool valid_id(std::string_view id) {
  if (id.empty()) return false;
  return std::none_of(id.begin(), id.end(), [](char c) { return c == ' ' || c == '\t' || c == ','; });
}

// A number, or a list "[a; b; c]" (PipeDream writes one size per output of multi-output modules,
// e.g. GNMT's LSTMs): the list stands for the sum of its elements.
bool parse_number_or_list(std::string_view value, double& out) {
  if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
    std::string_view inner = value.substr(1, value.size() - 2);
    double sum = 0;
    size_t start = 0;
    while (true) {
      size_t semi = inner.find(';', start);
      std::string_view item =
          trim(inner.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start));
      double v = 0;
      if (!parse_double(item, v) || v < 0) return false;
      sum += v;
      if (semi == std::string_view::npos) break;
      start = semi + 1;
    }
    out = sum;
    return true;
  }
  return parse_double(value, out);
}

// Parses "k1=v1, k2=v2, ..." into the node's fields.
void parse_attributes(std::string_view attrs, GraphNode& node, const std::string& path, long line) {
  static const char* const kKeys[] = {"forward_compute_time", "backward_compute_time", "activation_size",
                                      "parameter_size"};
  double values[4];
  bool seen[4] = {false, false, false, false};
  size_t start = 0;
  while (start <= attrs.size()) {
    size_t comma = attrs.find(',', start);
    std::string_view item =
        trim(attrs.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!item.empty()) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos) throw Error(path, line, std::string(item), "expected key=value");
      std::string key(trim(item.substr(0, eq)));
      std::string_view value = trim(item.substr(eq + 1));
      int k = -1;
      for (int i = 0; i < 4; ++i)
        if (key == kKeys[i]) k = i;
      if (k < 0) throw Error(path, line, key, "unknown attribute");
      if (seen[k]) throw Error(path, line, key, "attribute given twice");
      double v = 0;
      if (!parse_number_or_list(value, v))
        throw Error(path, line, key, "not a number or [a; b; ...] list: '" + std::string(value) + "'");
      const double max = k < 2 ? kMaxLayerCompute_ms : kMaxLayerBytes;
      if (v < 0 || v > max)
        throw Error(path, line, key, "must be in [0, " + fmt::format("{:g}", max) + "], got " + std::string(value));
      values[k] = v;
      seen[k] = true;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  for (int i = 0; i < 4; ++i)
    if (!seen[i]) throw Error(path, line, kKeys[i], "missing attribute");
  node.fwd_s = values[0] / 1000.0;
  node.bwd_s = values[1] / 1000.0;
  node.activation_bytes = values[2];
  node.param_bytes = values[3];
}

}  // namespace

double ModelGraph::total_fwd_s() const {
  double s = 0;
  for (const auto& n : nodes) s += n.fwd_s;
  return s;
}
double ModelGraph::total_bwd_s() const {
  double s = 0;
  for (const auto& n : nodes) s += n.bwd_s;
  return s;
}
double ModelGraph::total_param_bytes() const {
  double s = 0;
  for (const auto& n : nodes) s += n.param_bytes;
  return s;
}
int ModelGraph::param_nodes() const {
  return static_cast<int>(
      std::count_if(nodes.begin(), nodes.end(), [](const GraphNode& n) { return n.param_bytes > 0; }));
}

ModelGraph parse_model_graph(const std::string& text, const std::string& path, const std::string& name) {
  std::vector<GraphNode> nodes;
  std::unordered_map<std::string, int> index;
  struct Edge {
    int from, to;
    long line;
  };
  std::vector<Edge> edges;
  struct PendingEdge {
    std::string from, to;
    long line;
  };
  std::vector<PendingEdge> pending;
  long line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view raw(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    auto parts = split_dashes(line);
    if (parts.size() == 2) {
      std::string_view a = trim(parts[0]), b = trim(parts[1]);
      if (!valid_id(a)) throw Error(path, line_no, "edge", "bad source node id '" + std::string(a) + "'");
      if (!valid_id(b)) throw Error(path, line_no, "edge", "bad target node id '" + std::string(b) + "'");
      pending.push_back({std::string(a), std::string(b), line_no});
    } else if (parts.size() >= 3) {
      GraphNode node;
      node.id = std::string(trim(parts[0]));
      if (!valid_id(node.id)) throw Error(path, line_no, "node", "bad node id '" + node.id + "'");
      std::string op;
      for (size_t i = 1; i + 1 < parts.size(); ++i) op += (i > 1 ? " -- " : "") + std::string(parts[i]);
      node.op = std::string(trim(op));
      node.line = line_no;
      parse_attributes(parts.back(), node, path, line_no);
      if (index.count(node.id)) throw Error(path, line_no, "node", "duplicate node '" + node.id + "'");
      index[node.id] = static_cast<int>(nodes.size());
      nodes.push_back(std::move(node));
    } else {
      throw Error(path, line_no, "", "malformed line: expected 'id -- op -- attributes' or 'nodeA -- nodeB'");
    }
  }
  if (nodes.empty()) throw Error(path, 0, "", "no nodes in graph");
  for (const auto& pe : pending) {
    auto fa = index.find(pe.from), fb = index.find(pe.to);
    if (fa == index.end()) throw Error(path, pe.line, "edge", "unknown node '" + pe.from + "'");
    if (fb == index.end()) throw Error(path, pe.line, "edge", "unknown node '" + pe.to + "'");
    if (fa->second == fb->second) throw Error(path, pe.line, "edge", "self-loop on '" + pe.from + "'");
    edges.push_back({fa->second, fb->second, pe.line});
  }
  // Kahn's algorithm; ties broken by order of appearance for determinism.
  const int n = static_cast<int>(nodes.size());
  std::vector<std::vector<int>> out(n);
  std::vector<int> indeg(n, 0);
  for (const auto& e : edges) {
    out[e.from].push_back(e.to);
    ++indeg[e.to];
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int v = ready.top();
    ready.pop();
    order.push_back(v);
    for (int w : out[v])
      if (--indeg[w] == 0) ready.push(w);
  }
  if (static_cast<int>(order.size()) != n) {
    for (const auto& e : edges)
      if (indeg[e.to] > 0 && indeg[e.from] > 0)
        throw Error(path, e.line, "edge",
                    "the graph has a cycle through '" + nodes[e.from].id + "' -> '" + nodes[e.to].id + "'");
    throw Error(path, 0, "edge", "the graph has a cycle");
  }
  std::vector<int> new_index(n);
  for (int i = 0; i < n; ++i) new_index[order[i]] = i;
  ModelGraph g;
  g.name = name;
  g.path = path;
  g.nodes.reserve(n);
  for (int i = 0; i < n; ++i) g.nodes.push_back(std::move(nodes[order[i]]));
  for (const auto& e : edges) {
    g.nodes[new_index[e.from]].succs.push_back(new_index[e.to]);
    g.nodes[new_index[e.to]].preds.push_back(new_index[e.from]);
  }
  for (auto& node : g.nodes) {
    std::sort(node.succs.begin(), node.succs.end());
    std::sort(node.preds.begin(), node.preds.end());
  }
  return g;
}

ModelGraph read_model_graph(const std::string& path, const std::string& name) {
  return parse_model_graph(read_text_file(path), path, name);
}

std::vector<double> parameter_sizes_by_node_number(const ModelGraph& graph) {
  std::vector<const GraphNode*> in_file(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) in_file[i] = &graph.nodes[i];
  std::stable_sort(in_file.begin(), in_file.end(),
                   [](const GraphNode* a, const GraphNode* b) { return a->line < b->line; });
  std::vector<std::pair<long, double>> keyed;
  for (const GraphNode* n : in_file) {
    if (!(n->param_bytes > 0)) continue;
    long id = static_cast<long>(keyed.size());
    long parsed = 0;
    if (n->id.rfind("node", 0) == 0 && parse_long(std::string_view(n->id).substr(4), parsed)) id = parsed;
    keyed.emplace_back(id, n->param_bytes);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> out;
  out.reserve(keyed.size());
  for (const auto& k : keyed) out.push_back(k.second);
  return out;
}

}  // namespace dmlkit
