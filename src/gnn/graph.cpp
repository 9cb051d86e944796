// Graph readers and the R-MAT generator (see graph.h).
#include "gnn/graph.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string_view>

#include "core/suggest.h"
#include "core/edge_file.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/rng.h"

namespace dmlkit::gnn {
namespace {

// Splits a line into whitespace-separated fields (views into the line).
void split_fields(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
}

bool skip_line(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  return i == line.size() || line[i] == '#' || line[i] == '%';
}

uint64_t parse_id(std::string_view f, const std::string& path, long line, const char* field) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size())
    throw Error(path, line, field, "expected a node id (a whole number >= 0), got '" + std::string(f) + "'");
  if (v >= 0xFFFFFFFFULL) throw Error(path, line, field, "node id " + std::string(f) + " too large (max 4294967294)");
  return v;
}

struct Line {
  std::string_view text;
  long number;
};

std::vector<Line> data_lines(const std::string& text) {
  std::vector<Line> out;
  long number = 0;
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    ++number;
    std::string_view l(text.data() + i, j - i);
    if (!skip_line(l)) out.push_back({l, number});
    if (j == text.size()) break;
    i = j + 1;
  }
  return out;
}

// The graph of an edge file (core/edge_file.h: the reader influence uses too); a third field is a
// weight, which the CSR does not keep.
Graph graph_of(EdgeFile file, const std::string& path) {
  std::vector<std::pair<uint32_t, uint32_t>> pairs(file.edges());
  for (size_t e = 0; e < pairs.size(); ++e) pairs[e] = {file.src[e], file.dst[e]};
  const uint64_t nodes = file.nodes;
  file = EdgeFile{};
  return build_graph(std::filesystem::path(path).stem().string(), static_cast<uint32_t>(nodes), pairs);
}

EdgeFileOptions edge_options(GraphFormat format, uint64_t max_nodes) {
  EdgeFileOptions o;
  o.format = format;
  o.third_field = "weight";
  o.max_nodes = max_nodes;
  o.hard_max_nodes = 0xFFFFFFFFULL;  // uint32_t ids
  return o;
}

}  // namespace

double Graph::memory_bytes() const {
  return static_cast<double>(offsets.size()) * sizeof(uint64_t) +
         static_cast<double>(neighbours.size()) * sizeof(uint32_t);
}

Graph build_graph(std::string name, uint32_t nodes, std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
  Graph g;
  g.name = std::move(name);
  g.nodes = nodes;
  g.offsets.assign(static_cast<size_t>(nodes) + 1, 0);
  for (auto [u, v] : pairs)
    if (u != v) ++g.offsets[u + 1], ++g.offsets[v + 1];
  for (size_t i = 1; i < g.offsets.size(); ++i) g.offsets[i] += g.offsets[i - 1];
  g.neighbours.resize(g.offsets.back());
  std::vector<uint64_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (auto [u, v] : pairs)
    if (u != v) g.neighbours[fill[u]++] = v, g.neighbours[fill[v]++] = u;
  std::vector<std::pair<uint32_t, uint32_t>>().swap(pairs);
  // Sort and deduplicate every row, compacting in place.
  uint64_t write = 0;
  for (uint32_t v = 0; v < nodes; ++v) {
    const uint64_t b = g.offsets[v], e = g.offsets[v + 1];
    std::sort(g.neighbours.begin() + b, g.neighbours.begin() + e);
    g.offsets[v] = write;
    for (uint64_t k = b; k < e; ++k)
      if (k == b || g.neighbours[k] != g.neighbours[k - 1]) g.neighbours[write++] = g.neighbours[k];
  }
  g.offsets[nodes] = write;
  g.neighbours.resize(write);
  g.neighbours.shrink_to_fit();
  return g;
}

GraphFormat parse_graph_format(const std::string& name) { return parse_edge_file_format(name); }

Graph parse_graph_text(const std::string& text, const std::string& path, GraphFormat format, uint64_t max_nodes) {
  return graph_of(parse_edge_file(text, path, edge_options(format, max_nodes)), path);
}

Graph read_graph_file(const std::string& path, GraphFormat format, uint64_t max_nodes) {
  return graph_of(read_edge_file(path, edge_options(format, max_nodes)), path);
}

RmatParams parse_rmat(const std::string& spec) {
  RmatParams p;
  const std::string body = spec.substr(spec.find(':') == std::string::npos ? spec.size() : spec.find(':') + 1);
  size_t i = 0;
  while (i < body.size()) {
    size_t j = body.find(',', i);
    if (j == std::string::npos) j = body.size();
    const std::string kv = body.substr(i, j - i);
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) throw Error("", 0, "graph", "rmat: expected key=value, got '" + kv + "'");
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    double x = 0;
    try {
      size_t used = 0;
      x = std::stod(v, &used);
      if (used != v.size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw Error("", 0, "graph", "rmat: " + k + ": expected a number, got '" + v + "'");
    }
    if (k == "nodes") {
      if (!(x >= 2 && x <= 2e9)) throw Error("", 0, "graph", "rmat: nodes must be in [2, 2e9]");
      p.nodes = static_cast<uint64_t>(x);
    } else if (k == "edge_factor") {
      if (!(x > 0 && x <= 1000)) throw Error("", 0, "graph", "rmat: edge_factor must be in (0, 1000]");
      p.edge_factor = x;
    } else if (k == "a" || k == "b" || k == "c") {
      if (!(x >= 0 && x <= 1)) throw Error("", 0, "graph", "rmat: " + k + " must be in [0, 1]");
      (k == "a" ? p.a : k == "b" ? p.b : p.c) = x;
    } else {
      throw Error("", 0, "graph", "rmat: unknown key '" + k + "' (known: nodes, edge_factor, a, b, c)");
    }
    i = j + 1;
  }
  if (p.a + p.b + p.c > 1 + 1e-12) throw Error("", 0, "graph", "rmat: a + b + c must be <= 1");
  return p;
}

Graph generate_rmat(const RmatParams& p, uint64_t seed, int threads) {
  int scale = 1;
  while ((uint64_t{1} << scale) < p.nodes) ++scale;
  const uint64_t edges = static_cast<uint64_t>(std::llround(static_cast<double>(p.nodes) * p.edge_factor));
  const uint32_t n = static_cast<uint32_t>(p.nodes);
  const uint64_t mask = (uint64_t{1} << scale) - 1;
  // Ids >= nodes are redrawn; the others are scrambled by a seeded bijection of [0, nodes) (an odd
  // multiplier and an offset modulo 2^scale, cycle-walked back into range) instead of a stored
  // permutation: no random lookups.
  const uint64_t mult = (Rng(seed).split(1).next() | 1) & mask, add = Rng(seed).split(3).next() & mask;
  // Thresholds on 16-bit draws: four levels per 64-bit random number.
  const uint32_t ta = static_cast<uint32_t>(p.a * 65536), tb = static_cast<uint32_t>((p.a + p.b) * 65536),
                 tc = static_cast<uint32_t>((p.a + p.b + p.c) * 65536);
  auto draw = [&](Rng& rng, uint32_t& u, uint32_t& v) {
    while (true) {
      uint64_t uu = 0, vv = 0, bits = 0;
      for (int l = 0; l < scale; ++l) {
        if (l % 4 == 0) bits = rng.next();
        const uint32_t r = static_cast<uint32_t>(bits & 0xFFFF);
        bits >>= 16;
        // Branch-free (a quadrant is a coin flip the predictor cannot learn): quadrant a below ta,
        // b below tb, c below tc, d above.
        const uint64_t bu = static_cast<uint64_t>(r >= tb);                            // c, d: lower half
        const uint64_t bv = static_cast<uint64_t>((r >= ta) ^ (r >= tb) ^ (r >= tc));  // b, d: right half
        uu = (uu << 1) | bu;
        vv = (vv << 1) | bv;
      }
      if (uu < n && vv < n) {
        // Cycle-walking keeps the bijection inside [0, nodes).
        do uu = (uu * mult + add) & mask;
        while (uu >= n);
        do vv = (vv * mult + add) & mask;
        while (vv >= n);
        u = static_cast<uint32_t>(uu);
        v = static_cast<uint32_t>(vv);
        return;
      }
    }
  };
  // The edges come in 64 fixed chunks, each from its own random stream, so the graph does not
  // depend on the number of threads (rows are sorted at the end, so neither does the fill order).
  // Every chunk draws its edges twice: once to count the entries per block of 2^15 source nodes,
  // once to write both directions of each edge into its slice of the block's range, which is
  // exactly the block's range of the CSR; no atomics, and a block's rows are then put in order
  // within the block's range on one thread, in cache.
  constexpr int kChunks = 64, kBlockBits = 15;
  constexpr uint32_t kBlockNodes = 1u << kBlockBits;
  const int T = resolve_threads(threads);
  const size_t blocks = (static_cast<size_t>(n) + kBlockNodes - 1) >> kBlockBits;
  auto chunk_range = [&](size_t k) {
    return std::pair<uint64_t, uint64_t>{edges * k / kChunks, edges * (k + 1) / kChunks};
  };
  // Chunk k's edges without self-loops, each as fn(u, v) then fn(v, u): the same on both passes.
  auto for_each_entry = [&](size_t k, auto&& fn) {
    Rng rng = Rng(seed).split(100 + k);
    uint32_t u, v;
    const auto [b, e] = chunk_range(k);
    for (uint64_t x = b; x < e; ++x) {
      draw(rng, u, v);
      if (u == v) continue;
      fn(u, v);
      fn(v, u);
    }
  };
  std::vector<uint64_t> slot(kChunks * blocks + 1, 0);  // [block][chunk]: entries, then write cursors
  parallel_for(kChunks, T, [&](size_t k) {
    for_each_entry(k, [&](uint32_t from, uint32_t) { ++slot[(from >> kBlockBits) * kChunks + k]; });
  });
  std::vector<uint64_t> block_start(blocks + 1, 0);
  {
    uint64_t sum = 0;
    for (size_t i = 0; i < kChunks * blocks; ++i) {
      if (i % kChunks == 0) block_start[i / kChunks] = sum;
      const uint64_t c = slot[i];
      slot[i] = sum;
      sum += c;
    }
    block_start[blocks] = sum;
  }
  Graph g;
  g.name = "rmat-" + std::to_string(p.nodes);
  g.nodes = n;
  g.neighbours.resize(block_start[blocks]);
  std::vector<uint16_t> source(block_start[blocks]);  // an entry's source node within its block
  parallel_for(kChunks, T, [&](size_t k) {
    for_each_entry(k, [&](uint32_t from, uint32_t to) {
      uint64_t& at = slot[(from >> kBlockBits) * kChunks + k];
      g.neighbours[at] = to;
      source[at++] = static_cast<uint16_t>(from & (kBlockNodes - 1));
    });
  });
  std::vector<uint64_t>().swap(slot);
  // Per block: counting sort of its entries by source into a scratch copy, then every row sorted
  // and deduplicated back to the front of the block's range; degrees into offsets[v + 1].
  g.offsets.assign(static_cast<size_t>(n) + 1, 0);
  std::vector<uint64_t> block_kept(blocks, 0);
  const size_t workers = std::min(static_cast<size_t>(T), blocks);  // each takes every workers-th block
  parallel_for(workers, T, [&](size_t t) {
    std::vector<uint32_t> scratch, row_start(kBlockNodes + 1);
    for (size_t blk = t; blk < blocks; blk += workers) {
      const uint64_t s = block_start[blk], e = block_start[blk + 1];
      const uint32_t lo = static_cast<uint32_t>(blk << kBlockBits);
      const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(kBlockNodes, n - lo));
      std::fill(row_start.begin(), row_start.begin() + count + 1, 0u);
      for (uint64_t i = s; i < e; ++i) ++row_start[source[i] + 1];
      for (uint32_t r = 0; r < count; ++r) row_start[r + 1] += row_start[r];
      scratch.resize(e - s);
      for (uint64_t i = s; i < e; ++i) scratch[row_start[source[i]]++] = g.neighbours[i];
      uint64_t write = s;
      uint32_t first = 0;
      for (uint32_t r = 0; r < count; ++r) {
        const uint32_t last = row_start[r];  // after the fill: the row's end
        std::sort(scratch.begin() + first, scratch.begin() + last);
        const uint64_t before = write;
        for (uint32_t i = first; i < last; ++i)
          if (i == first || scratch[i] != scratch[i - 1]) g.neighbours[write++] = scratch[i];
        g.offsets[lo + r + 1] = write - before;
        first = last;
      }
      block_kept[blk] = write - s;
    }
  });
  std::vector<uint16_t>().swap(source);
  uint64_t write = 0;
  for (size_t blk = 0; blk < blocks; ++blk) {
    if (write != block_start[blk])
      std::copy(g.neighbours.begin() + block_start[blk], g.neighbours.begin() + block_start[blk] + block_kept[blk],
                g.neighbours.begin() + write);
    write += block_kept[blk];
  }
  for (size_t v = 0; v < n; ++v) g.offsets[v + 1] += g.offsets[v];
  // Duplicates and self-loops are a few percent of R-MAT's pairs: shrinking would copy the whole
  // adjacency (both copies alive, +0.6 GB at 10^7 nodes), so the slack is kept unless it is large.
  const bool shrink = write < g.neighbours.size() - g.neighbours.size() / 4;
  g.neighbours.resize(write);
  if (shrink) g.neighbours.shrink_to_fit();
  return g;
}

std::vector<std::string> bundled_graph_names() { return {"NetHEPT", "cora", "citeseer", "pubmed"}; }

std::string graph_input_path(const std::string& spec, const std::string& data_dir) {
  if (spec.rfind("rmat:", 0) == 0) return "";
  if (spec == "NetHEPT") return data_dir + "/graphs/NetHEPT.txt";
  for (const auto& n : {"cora", "citeseer", "pubmed"})
    if (spec == n) return data_dir + "/gnn-graphs/" + spec + "/edges.txt";
  return spec;
}

Graph load_graph(const std::string& spec, GraphFormat format, const std::string& data_dir, uint64_t seed, int threads,
                 uint64_t max_nodes) {
  if (spec.rfind("rmat:", 0) == 0 || spec == "rmat") return generate_rmat(parse_rmat(spec), seed, threads);
  const std::string path = graph_input_path(spec, data_dir);
  if (spec == "cora" || spec == "citeseer" || spec == "pubmed") {
    // Planetoid edge list; node count and feature dimension from meta.txt (isolated nodes count).
    const std::string meta_path = data_dir + "/gnn-graphs/" + spec + "/meta.txt";
    uint64_t nodes = 0;
    int features = 0;
    const std::string meta = read_text_file(meta_path);
    std::vector<std::string_view> f;
    for (const auto& l : data_lines(meta)) {
      split_fields(l.text, f);
      if (f.size() == 2 && f[0] == "num_nodes") nodes = parse_id(f[1], meta_path, l.number, "num_nodes");
      if (f.size() == 2 && f[0] == "num_features")
        features = static_cast<int>(parse_id(f[1], meta_path, l.number, "num_features"));
    }
    if (nodes == 0) throw Error(meta_path, 0, "num_nodes", "missing");
    EdgeFileOptions o = edge_options(GraphFormat::Edges, max_nodes);
    o.declared_nodes = nodes;
    Graph out = graph_of(read_edge_file(path, o), path);
    out.name = spec;
    out.default_feature_dim = features;
    return out;
  }
  if (!std::filesystem::is_regular_file(path))  // a mistyped bundled name: say which one was meant
    throw Error(path, 0, "graph",
                "no such graph file" + did_you_mean(spec, bundled_graph_names()) +
                    " (bundled: NetHEPT, cora, citeseer, pubmed; generated: rmat:nodes=N,edge_factor=F)");
  Graph g = read_graph_file(path, format, max_nodes);
  if (spec == "NetHEPT") g.name = "NetHEPT";
  return g;
}

}  // namespace dmlkit::gnn
