// Issue 36 items 9 and 14: the one graph edge-file reader (core/edge_file.h) of gnn and influence:
// its auto-detection rule, and the node limit checked before any per-node allocation.
#include <gtest/gtest.h>

#include <string>

#include "core/edge_file.h"
#include "core/error.h"

namespace dmlkit {
namespace {

EdgeFile parse(const std::string& text, EdgeFileOptions o = {}) { return parse_edge_file(text, "g.txt", o); }

void expect_error(const std::string& text, long line, const std::string& field, const std::string& needle,
                  EdgeFileOptions o = {}) {
  try {
    (void)parse(text, o);
    FAIL() << "no error for: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(EdgeFile, AutoDetectsAHeaderByItsCountOrByThreeFieldLines) {
  const EdgeFile a = parse("3 2\n0 1\n1 2\n");  // header: 2 edge lines follow
  EXPECT_EQ(a.nodes, 3u);
  EXPECT_EQ(a.edges(), 2u);
  EXPECT_TRUE(a.third.empty());
  const EdgeFile b = parse("4 3\n0 1 0.5\n1 2 1\n# c\n3 0 0\n");
  EXPECT_EQ(b.nodes, 4u);
  EXPECT_EQ(b.third, (std::vector<double>{0.5, 1, 0}));
  const EdgeFile c = parse("3 4\n4 1\n");  // 4 != 1 line: a plain edge list
  EXPECT_EQ(c.nodes, 5u);
  EXPECT_EQ(c.edges(), 2u);
  // A two-field line before three-field lines can only be a header: a wrong count is an error.
  expect_error("3 3\n0 1 0.5\n1 2 0.5\n", 1, "edges", "declares 3 edges, the file has 2");
}

TEST(EdgeFile, ANodeCountFarBeyondTheEdgesIsRefusedBeforeAllocating) {
  expect_error("0 4294967293\n", 1, "target", "too large");
  expect_error("0 49999999\n", 1, "target", "1000002 nodes for 1 edge lines");
  expect_error("50000000 1\n0 1\n", 1, "nodes", "declares 50000000 nodes");
  EdgeFileOptions more;
  more.max_nodes = 50'000'000;
  EXPECT_EQ(parse("0 49999999\n", more).nodes, 50'000'000u);
  EdgeFileOptions small_ids;
  small_ids.max_nodes = 100'000'000;
  small_ids.hard_max_nodes = 50'000'000;
  expect_error("0 60000000\n", 1, "target", "at most 50000000 nodes", small_ids);
  EXPECT_EQ(parse("0 999999\n").nodes, 1'000'000u);  // within the default allowance
}

TEST(EdgeFile, ThirdFieldsAreAllOrNoneAndWithinTheCallersRange) {
  EdgeFileOptions p;
  p.third_field = "probability";
  p.third_min = 0;
  p.third_max = 1;
  expect_error("0 1 0.5\n1 2\n", 2, "probability", "missing", p);
  expect_error("0 1\n1 2 0.5\n", 2, "probability", "unexpected", p);
  expect_error("0 1 1.5\n", 1, "probability", "outside [0, 1]", p);
  expect_error("0 1 x\n", 1, "weight", "expected a number");
  expect_error("0 1 2 3\n", 1, "", "got 4 fields");
  expect_error("# only\n\n", 0, "", "no data lines");
}

}  // namespace
}  // namespace dmlkit
