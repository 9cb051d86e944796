// Measured per-layer model DAGs (PipeDream profiler format, data/model-graphs/<model>.txt): nodes
// with forward/backward compute time and activation/parameter bytes, plus edges. The reader checks
// every line and raises dmlkit::Error(file, line, field, ...) on bad input (malformed line, bad or
// negative number, duplicate node, edge to an unknown node, a cycle). Nodes are returned in a
// deterministic topological order (Kahn's algorithm, ties broken by order of appearance), which is
// the order the single GPU stream executes the forward pass in.
#pragma once
#include <string>
#include <vector>

namespace dmlkit::comm {

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
// The folder of bundled graphs: $DMLKIT_DATA_DIR/model-graphs if set, else the source tree's.
std::string default_model_graph_dir();
// Names of the bundled models (file stems in `dir`), sorted.
std::vector<std::string> list_models(const std::string& dir);
// Loads model `name` from `dir`; an unknown name raises Error naming the field "model" and
// listing the known models.
ModelGraph load_model(const std::string& name, const std::string& dir);

// Multiplies every compute time by `factor` (> 0, finite; else Error on field "compute_scale").
// Documented use: another GPU (ratio of its step time to the profiling GPU's) or another batch
// size (batch/128, assuming compute time linear in batch -- an [A] assumption, see docs/comm.md).
void scale_compute(ModelGraph& graph, double factor);

}  // namespace dmlkit::comm
