// Readers of graph files: core/edge_file.h, the reader gnn uses too (one format, one auto-detection
// rule, one node limit), with influence's third field, a propagation probability p in [0, 1]:
//   header: first line "<nodes> <edges>", then exactly <edges> lines "u v [p]" (NetHEPT's format);
//           node ids must be in 0..nodes-1.
//   edges:  a plain edge list, one "u v [p]" per line; the node count is the largest id + 1.
// In both, blank lines and lines starting with '#' or '%' are skipped, fields are separated by
// spaces or tabs, and either every edge line has a probability or none has. At most 50,000,000
// nodes (the algorithms' per-node tables), and by default at most 1,000,000 + 2 per edge line
// (max_nodes, the CLI's --max-nodes, sets another limit).
// Every defect (bad header count, non-numeric id, id out of range, probability outside [0, 1],
// wrong field count) raises dmlkit::Error naming the file, the line and the field.
#pragma once
#include <cstdint>
#include <string>

#include "core/edge_file.h"
#include "influence/graph.h"

namespace dmlkit::influence {

using GraphFormat = EdgeFileFormat;

// "auto", "header" or "edges"; throws Error otherwise.
GraphFormat parse_graph_format(const std::string& name);

// Auto: core/edge_file.h's rule.
EdgeList read_graph(const std::string& path, GraphFormat format = GraphFormat::Auto, uint64_t max_nodes = 0);
// Parses `text` as if it were the file `path` (tests).
EdgeList parse_graph(const std::string& text, const std::string& path, GraphFormat format = GraphFormat::Auto,
                     uint64_t max_nodes = 0);

}  // namespace dmlkit::influence
