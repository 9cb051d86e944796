// Graph readers: both formats, auto-detection, and every malformed-input case raising
// dmlkit::Error with file, line and field.
#include <gtest/gtest.h>

#include "core/error.h"
#include "influence/graph.h"
#include "influence/graph_io.h"
#include "influence/graph_source.h"

namespace dmlkit::influence {
namespace {

void expect_error(const std::string& text, GraphFormat format, long line, const std::string& field,
                  const std::string& needle) {
  try {
    parse_graph(text, "g.txt", format);
    FAIL() << "no error for: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "g.txt");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(InfluenceGraphIo, HeaderFormatWithProbabilities) {
  const EdgeList g = parse_graph("4 3\n0 1 0.5\n1 2 1\n# comment\n3 0 0\n", "g.txt");
  EXPECT_EQ(g.num_nodes, 4u);
  ASSERT_EQ(g.num_edges(), 3u);
  EXPECT_EQ(g.src[2], 3u);
  EXPECT_EQ(g.dst[2], 0u);
  EXPECT_FLOAT_EQ(g.prob[0], 0.5f);
  const Graph csr = Graph::from_edges(g);
  EXPECT_EQ(csr.out_end(0) - csr.out_begin(0), 1u);
  EXPECT_EQ(csr.in_end(0) - csr.in_begin(0), 1u);
  EXPECT_EQ(csr.in_source()[csr.in_begin(0)], 3u);
}

TEST(InfluenceGraphIo, PlainEdgeListWithoutProbabilities) {
  const EdgeList g = parse_graph("% plain\n0 5\n5\t2\r\n\n2 0\n", "g.txt");
  EXPECT_EQ(g.num_nodes, 6u);
  EXPECT_EQ(g.num_edges(), 3u);
  EXPECT_FALSE(g.has_probabilities());
  EXPECT_THROW(Graph::from_edges(g), Error);
}

TEST(InfluenceGraphIo, AutoDetectsAPlainListOfPairs) {
  // Two-field first line followed by two-field lines: a plain edge list, not a header.
  const EdgeList g = parse_graph("3 4\n4 1\n", "g.txt");
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.num_nodes, 5u);
}

TEST(InfluenceGraphIo, BadHeaderCount) {
  expect_error("3 3\n0 1 0.5\n1 2 0.5\n", GraphFormat::Auto, 1, "edges", "declares 3 edges, the file has 2");
  expect_error("3 1\n0 1 0.5\n1 2 0.5\n", GraphFormat::Header, 3, "edges", "declares 1 edges, the file has 2");
  expect_error("x 1\n0 1 0.5\n", GraphFormat::Header, 1, "nodes", "non-negative integer");
}

TEST(InfluenceGraphIo, ProbabilityOutsideUnitInterval) {
  expect_error("3 2\n0 1 0.5\n1 2 1.5\n", GraphFormat::Auto, 3, "probability", "outside [0, 1]");
  expect_error("0 1 -0.1\n", GraphFormat::Edges, 1, "probability", "outside [0, 1]");
  expect_error("0 1 abc\n", GraphFormat::Edges, 1, "probability", "expected a number");
}

TEST(InfluenceGraphIo, NonNumericOrOutOfRangeIds) {
  expect_error("3 2\n0 1 0.5\nfoo 2 0.5\n", GraphFormat::Auto, 3, "source", "'foo'");
  expect_error("0 1\n1 -2\n", GraphFormat::Edges, 2, "target", "'-2'");
  expect_error("3 2\n0 1 0.5\n1 7 0.5\n", GraphFormat::Auto, 3, "target", "outside 0..2");
  expect_error("0 1\n1 99999999999\n", GraphFormat::Edges, 2, "target", "too large");
  expect_error("99999999999 0\n", GraphFormat::Header, 1, "nodes", "declares 99999999999 nodes");
}

TEST(InfluenceGraphIo, WrongFieldCountsAndMixedProbabilities) {
  expect_error("0 1 0.5 9\n", GraphFormat::Edges, 1, "", "got 4 fields");
  expect_error("0 1 0.5\n1 2\n", GraphFormat::Edges, 2, "probability", "missing");
  expect_error("# nothing\n\n", GraphFormat::Auto, 0, "", "no data lines");
}

TEST(InfluenceGraphIo, BundledNetHeptMatchesItsHeader) {
  const EdgeList g = load_graph("NetHEPT", GraphFormat::Auto, DMLKIT_SOURCE_DIR "/data", 1);
  EXPECT_EQ(g.num_nodes, 15233u);
  EXPECT_EQ(g.num_edges(), 58891u);
  EXPECT_TRUE(g.has_probabilities());
}

TEST(InfluenceGraphIo, GeneratorSpecs) {
  const EdgeList er = load_graph("er:nodes=2000,degree=4", GraphFormat::Auto, "", 7);
  EXPECT_EQ(er.num_nodes, 2000u);
  EXPECT_NEAR(static_cast<double>(er.num_edges()) / 2000.0, 4.0, 0.2);
  for (size_t e = 0; e < er.num_edges(); ++e) ASSERT_NE(er.src[e], er.dst[e]);
  const EdgeList ba = load_graph("ba:nodes=500,m=3", GraphFormat::Auto, "", 7);
  EXPECT_EQ(ba.num_nodes, 500u);
  // Clique of 4 (6 links) plus 3 links per later node, two directed edges per link.
  EXPECT_EQ(ba.num_edges(), 2u * (6 + 3 * 496));
  std::vector<int> degree(500, 0);
  for (NodeId v : ba.src) ++degree[v];
  EXPECT_GT(*std::max_element(degree.begin(), degree.end()), 30);  // hubs emerge
  const EdgeList follow = load_graph("ba:nodes=500,m=3,reciprocal=0", GraphFormat::Auto, "", 7);
  EXPECT_EQ(follow.num_edges(), 6u + 3 * 496);
  for (size_t e = 0; e < follow.num_edges(); ++e) ASSERT_LT(follow.src[e], follow.dst[e]);  // earlier -> newer
  EXPECT_THROW(load_graph("er:nodes=10", GraphFormat::Auto, "", 1), Error);
  EXPECT_THROW(load_graph("ba:nodes=10,m=2,x=1", GraphFormat::Auto, "", 1), Error);
  EXPECT_THROW(load_graph("/no/such/file.txt", GraphFormat::Auto, "", 1), Error);
}

}  // namespace dmlkit::influence
