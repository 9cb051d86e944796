// Readers of graph files. Two formats:
//   header: first line "<nodes> <edges>", then exactly <edges> lines "u v [p]" (NetHEPT's format);
//           node ids must be in 0..nodes-1.
//   edges:  a plain edge list, one "u v [p]" per line; the node count is the largest id + 1.
// In both, blank lines and lines starting with '#' or '%' are skipped, fields are separated by
// spaces or tabs, and either every edge line has a probability p in [0, 1] or none has.
// Every defect (bad header count, non-numeric id, id out of range, probability outside [0, 1],
// wrong field count) raises dmlkit::Error naming the file, the line and the field.
#pragma once
#include <string>

#include "influence/graph.h"

namespace dmlkit::influence {

enum class GraphFormat { Auto, Header, Edges };

// "auto", "header" or "edges"; throws Error otherwise.
GraphFormat parse_graph_format(const std::string& name);

// Auto picks "header" when the first data line has two fields and the second has three (or the
// file has only its header line), "edges" otherwise.
EdgeList read_graph(const std::string& path, GraphFormat format = GraphFormat::Auto);
// Parses `text` as if it were the file `path` (tests).
EdgeList parse_graph(const std::string& text, const std::string& path, GraphFormat format = GraphFormat::Auto);

}  // namespace dmlkit::influence
