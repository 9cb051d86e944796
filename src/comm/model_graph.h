// Measured per-layer model DAGs (PipeDream profiler format, data/model-graphs/<model>.txt) by model
// name, and their compute scaling. The format's parser is core/pipedream_graph.h (shared with the
// cluster level); its types are used here under comm's names.
#pragma once
#include <string>
#include <vector>

#include "core/pipedream_graph.h"

namespace dmlkit::comm {

using dmlkit::GraphNode;
using dmlkit::kMaxLayerBytes;
using dmlkit::kMaxLayerCompute_ms;
using dmlkit::ModelGraph;
using dmlkit::parse_model_graph;
using dmlkit::read_model_graph;

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
