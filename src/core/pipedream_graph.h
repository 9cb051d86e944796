// Reader of PipeDream-format model DAGs (the PipeDream profiler's graph files,
// data/model-graphs/<model>.txt): nodes with forward/backward compute time and activation/parameter
// bytes, plus edges. The one parser of the format: the iteration level (comm/model_graph.h: models
// by name, compute scaling) and the cluster level (cluster/speed/ps_assignment.h: the parameter
// tensors of a PS job) both read graphs through it. The reader checks every line and raises
// dmlkit::Error(file, line, field, ...) on bad input (malformed line, bad or negative number,
// duplicate node, edge to an unknown node, a cycle). Nodes are returned in a deterministic
// topological order (Kahn's algorithm, ties broken by order of appearance), which is the order the
// single GPU stream executes the forward pass in.
#pragma once
#include <string>
#include <vector>

namespace dmlkit {

// Physical bounds of one node of a model graph (docs/comm.md), refused beyond: a forward or
// backward compute time at most an hour (in the file's milliseconds), an activation or parameter
// size at most 1 TB (the largest layers of today's models are a few GB).
inline constexpr double kMaxLayerCompute_ms = 3.6e6;
inline constexpr double kMaxLayerBytes = 1e12;

struct GraphNode {
  std::string id;    // "node12"
  std::string op;    // module description, e.g. "Conv2d(128, 256, ...)"
  double fwd_s = 0;  // forward compute time, seconds
  double bwd_s = 0;  // backward compute time, seconds
  double activation_bytes = 0;
  double param_bytes = 0;  // all parameters of the module (weight + bias), fp32
  std::vector<int> preds;  // indices into ModelGraph::nodes
  std::vector<int> succs;
  long line = 0;  // line of the node in the file
};

struct ModelGraph {
  std::string name;
  std::string path;
  std::vector<GraphNode> nodes;  // topological order
  double total_fwd_s() const;
  double total_bwd_s() const;
  double total_param_bytes() const;
  int param_nodes() const;  // nodes with parameter_size > 0
};

// Parses `text` as the contents of `path` (model name `name`).
ModelGraph parse_model_graph(const std::string& text, const std::string& path, const std::string& name);
// Reads a graph file.
ModelGraph read_model_graph(const std::string& path, const std::string& name);
// Parameter sizes (bytes) of the nodes with parameters, in node-number order ("node12" is 12;
// ties and nodes without a number in the order of the file): the keys of a parameter-server job's
// tensors (MXNet registers them in that order).
std::vector<double> parameter_sizes_by_node_number(const ModelGraph& graph);

}  // namespace dmlkit
