// Graph file readers: core/edge_file.h with influence's third field (a probability) and node limit.
#include "influence/graph_io.h"

#include "core/edge_file.h"

namespace dmlkit::influence {
namespace {

// Larger node-id spaces would not fit the per-node tables of the algorithms (RSB keeps k weights
// per node); real social networks used for influence maximization are far below this.
constexpr uint64_t kMaxNodes = 50'000'000;

EdgeFileOptions edge_options(GraphFormat format, uint64_t max_nodes) {
  EdgeFileOptions o;
  o.format = format;
  o.third_field = "probability";
  o.third_min = 0;
  o.third_max = 1;
  o.max_nodes = max_nodes;
  o.hard_max_nodes = kMaxNodes;
  return o;
}

EdgeList edge_list_of(EdgeFile file, const std::string& path) {
  EdgeList g;
  g.name = path;
  g.num_nodes = static_cast<uint32_t>(file.nodes);
  g.src = std::move(file.src);
  g.dst = std::move(file.dst);
  g.prob.assign(file.third.begin(), file.third.end());
  return g;
}

}  // namespace

GraphFormat parse_graph_format(const std::string& name) { return parse_edge_file_format(name); }

EdgeList parse_graph(const std::string& text, const std::string& path, GraphFormat format, uint64_t max_nodes) {
  return edge_list_of(parse_edge_file(text, path, edge_options(format, max_nodes)), path);
}

EdgeList read_graph(const std::string& path, GraphFormat format, uint64_t max_nodes) {
  return edge_list_of(read_edge_file(path, edge_options(format, max_nodes)), path);
}

}  // namespace dmlkit::influence
