// Issue 36 item 14: gnn and influence read a graph file alike (core/edge_file.h): the same node and
// edge counts for a file both accept, the same line and field for one both refuse.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "gnn/graph.h"
#include "influence/graph_io.h"

namespace dmlkit {
namespace {

struct Read {
  bool ok = false;
  uint64_t nodes = 0;
  long line = 0;
  std::string field;
};

template <class F>
Read read_with(F parse) {
  Read r;
  try {
    r.nodes = parse();
    r.ok = true;
  } catch (const Error& e) {
    r.line = e.line();
    r.field = e.field();
  }
  return r;
}

TEST(GraphFiles, GnnAndInfluenceReadEveryFileAlike) {
  const std::vector<std::string> files = {
      "3 2\n0 1\n1 2\n",               // header with two-field edge lines (NetHEPT without probabilities)
      "4 3\n0 1 0.5\n1 2 1\n3 0 0\n",  // header with a third field
      "3 3\n0 1 0.5\n1 2 0.5\n",       // a header whose count is wrong
      "0 5\n5 2\n2 0\n",               // a plain edge list
      "3 2\n0 1\n1 3\n",               // an id beyond the header's count
      "0 49999999\n",                  // one line asking for 50 million nodes
  };
  for (const auto& text : files) {
    SCOPED_TRACE(text);
    const Read g =
        read_with([&] { return uint64_t{gnn::parse_graph_text(text, "g.txt", gnn::GraphFormat::Auto).nodes}; });
    const Read i = read_with([&] { return uint64_t{influence::parse_graph(text, "g.txt").num_nodes}; });
    EXPECT_EQ(g.ok, i.ok);
    EXPECT_EQ(g.nodes, i.nodes);
    EXPECT_EQ(g.line, i.line);
    EXPECT_EQ(g.field, i.field);
  }
  EXPECT_EQ(influence::parse_graph("3 2\n0 1\n1 2\n", "g.txt").num_edges(), 2u) << "the header is not an edge";
  // A third field on some lines only: the same line, the field named as each family reads it.
  const std::string mixed = "0 1 0.5\n1 2\n";
  const Read g =
      read_with([&] { return uint64_t{gnn::parse_graph_text(mixed, "g.txt", gnn::GraphFormat::Auto).nodes}; });
  const Read i = read_with([&] { return uint64_t{influence::parse_graph(mixed, "g.txt").num_nodes}; });
  EXPECT_EQ(g.line, 2);
  EXPECT_EQ(i.line, 2);
  EXPECT_EQ(g.field, "weight");
  EXPECT_EQ(i.field, "probability");
}

}  // namespace
}  // namespace dmlkit
