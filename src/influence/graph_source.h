// Resolves the --graph argument: a bundled network by name ("NetHEPT" -> data/graphs/NetHEPT.txt),
// a generator spec ("er:nodes=N,degree=D", "ba:nodes=N,m=M"), or a file path.
#pragma once
#include <cstdint>
#include <string>

#include "influence/graph.h"
#include "influence/graph_io.h"

namespace dmlkit::influence {

// $DMLKIT_DATA_DIR if set, else the source tree's data/ folder.
std::string default_graph_data_dir();

// Generated graphs use `seed` (the same graph for every run of an experiment).
// max_nodes: a graph file's node limit (read_graph; 0: the default).
EdgeList load_graph(const std::string& spec, GraphFormat format, const std::string& data_dir, uint64_t seed,
                    uint64_t max_nodes = 0);

}  // namespace dmlkit::influence
