// Graphs for distributed GNN training: an undirected graph in CSR form (neighbour lists sorted,
// duplicates and self-loops dropped), read from a file or generated.
//
// --graph accepts:
//   a bundled name: NetHEPT (data/graphs/NetHEPT.txt), cora, citeseer, pubmed
//     (data/gnn-graphs/<name>/edges.txt, node count from meta.txt);
//   a generator: rmat:nodes=N,edge_factor=F[,a=,b=,c=] (R-MAT with the Graph500 parameters
//     a=0.57, b=0.19, c=0.19 by default; edges = N x F before symmetrisation);
//   a file path: either the header format ("<nodes> <edges>" then "u v [w]" lines, NetHEPT's)
//     or a SNAP-style edge list ("u v" per line, '#' or '%' comments, node count = max id + 1),
//     read by core/edge_file.h (influence's reader too: one format, one auto rule, one node limit).
// Every defect (non-numeric or negative id, id >= the declared node count, wrong edge count, more
// nodes than the limit) raises dmlkit::Error naming file, line and field.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/edge_file.h"

namespace dmlkit::gnn {

struct Graph {
  std::string name;
  uint32_t nodes = 0;
  std::vector<uint64_t> offsets;     // nodes + 1
  std::vector<uint32_t> neighbours;  // offsets[v] .. offsets[v+1]: sorted, unique, no v itself
  int default_feature_dim = 0;       // from the data set's metadata (0 = none known)
  std::vector<char> train_mask;      // empty = every node is a training node
  uint64_t degree(uint32_t v) const { return offsets[v + 1] - offsets[v]; }
  uint64_t undirected_edges() const { return neighbours.size() / 2; }
  double memory_bytes() const;
};

// Builds the CSR from directed pairs (each pair is added both ways; duplicates and self-loops
// dropped). `pairs` is consumed.
Graph build_graph(std::string name, uint32_t nodes, std::vector<std::pair<uint32_t, uint32_t>>& pairs);

using GraphFormat = EdgeFileFormat;
GraphFormat parse_graph_format(const std::string& name);  // auto | header | edges

// Parses `text` as the file `path`; max_nodes as EdgeFileOptions (0: the default limit).
Graph parse_graph_text(const std::string& text, const std::string& path, GraphFormat format, uint64_t max_nodes = 0);
Graph read_graph_file(const std::string& path, GraphFormat format, uint64_t max_nodes = 0);

struct RmatParams {
  uint64_t nodes = 1 << 16;
  double edge_factor = 16;
  double a = 0.57, b = 0.19, c = 0.19;  // Graph500; d = 1 - a - b - c
};
RmatParams parse_rmat(const std::string& spec);  // "rmat:nodes=...,edge_factor=..."
// R-MAT edges in a 2^ceil(log2 nodes) square, vertex ids scrambled by a seeded bijection (Graph500
// permutes them) so degree does not follow the id, ids >= nodes redrawn. Built in two passes
// over 64 fixed random streams (count entries per block of source nodes, then write them) so the
// edge list is never held whole; on `threads` threads (0 = all cores); the same seed gives the
// same graph on any number of threads.
Graph generate_rmat(const RmatParams& p, uint64_t seed, int threads = 0);

// Resolves --graph (see above). `data_dir` is the bundled data folder; `threads` for the generator;
// `max_nodes` the node limit of a file (--max-nodes; 0: core/edge_file.h's default).
Graph load_graph(const std::string& spec, GraphFormat format, const std::string& data_dir, uint64_t seed,
                 int threads = 0, uint64_t max_nodes = 0);
// The file a bundled name or path refers to ("" for a generator), for the --out input check.
std::string graph_input_path(const std::string& spec, const std::string& data_dir);
std::vector<std::string> bundled_graph_names();

}  // namespace dmlkit::gnn
