// The one reader of graph edge files, shared by gnn and influence (`--graph FILE`): one format, one
// auto-detection rule, one set of errors and limits (docs/gnn.md, docs/influence.md).
//   header: the first data line "<nodes> <edges>", then exactly <edges> lines "u v [x]" with ids in
//           0..nodes-1 (NetHEPT's format);
//   edges:  one "u v [x]" per line (SNAP's); the node count is the largest id + 1.
// Blank lines and lines starting with '#' or '%' are skipped; fields are separated by spaces or
// tabs; either every edge line has a third field x (gnn: a weight, ignored; influence: a
// probability in [0, 1]) or none has.
// auto: header when the first data line is two whole numbers, the first not 0, and either the second equals the
// number of the other data lines, or the other data lines have three fields (an edge list's lines
// all have the same number of fields, so a two-field line before three-field lines can only be a
// header); edges otherwise.
// Limits, checked before any per-node allocation (a one-line file must not ask for billions of
// nodes): the node count (declared, or the largest id + 1) is at most max_nodes, by default
// kEdgeFileFreeNodes + 2 x the number of edge lines (every node beyond that is one no edge touches,
// which costs memory and time and tells nothing); a caller may pass a larger max_nodes (the CLI's
// --max-nodes), up to its own hard_max_nodes (what its id type and tables hold).
// Every defect raises dmlkit::Error naming the file, the line and the field.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dmlkit {

enum class EdgeFileFormat { Auto, Header, Edges };
// "auto", "header" or "edges"; Error naming --graph-format otherwise.
EdgeFileFormat parse_edge_file_format(const std::string& name);

// Nodes a graph file may have beyond 2 per edge line, unless max_nodes says otherwise.
inline constexpr uint64_t kEdgeFileFreeNodes = 1'000'000;

// The help of the CLI's --max-nodes (gnn compare, influence run).
inline constexpr const char* kMaxNodesHelp =
    "Most nodes a graph file may have (default: 1000000 + 2 per edge line; nodes no edge touches cost memory and "
    "time)";

struct EdgeFileOptions {
  EdgeFileFormat format = EdgeFileFormat::Auto;
  std::string third_field = "weight";  // what the optional third field is, in errors
  double third_min = -std::numeric_limits<double>::max();
  double third_max = std::numeric_limits<double>::max();
  uint64_t declared_nodes = 0;                 // edges format: > 0 gives the node count (a data set's metadata)
  uint64_t max_nodes = 0;                      // 0: kEdgeFileFreeNodes + 2 x edge lines
  uint64_t hard_max_nodes = 4'294'967'295ULL;  // never more (32-bit ids)
};

struct EdgeFile {
  uint64_t nodes = 0;
  std::vector<uint32_t> src, dst;  // one entry per edge line, in file order
  std::vector<double> third;       // the third fields; empty when the lines have none
  size_t edges() const { return src.size(); }
};

// Parses `text` as the file `path`.
EdgeFile parse_edge_file(const std::string& text, const std::string& path, const EdgeFileOptions& options);
// Reads `path` (BOM and CRLF accepted); Error if it is not a readable file.
EdgeFile read_edge_file(const std::string& path, const EdgeFileOptions& options);

}  // namespace dmlkit
