// The label-sequence HMM: counted transitions, and Viterbi resolving an ambiguous line by its
// neighbour (an assist line after a goal line); weight 0 leaves the classifier alone.
#include <gtest/gtest.h>

#include "football/hmm.h"

using namespace dmlkit::football;

TEST(FootballHmm, CountsWithAddOneAndResolvesByTheNeighbour) {
  // States 0 (goal), 1 (other). Training: goals run together, others too.
  const LabelHmm h = estimate_hmm({{0, 0, 0, 0, 1, 1, 1, 1}}, 2);
  EXPECT_DOUBLE_EQ(h.transitions[0 * 2 + 0], (3.0 + 1) / (4 + 2));  // goal->goal seen 3 of 4, add-one
  EXPECT_DOUBLE_EQ(h.transitions[1 * 2 + 0], (0.0 + 1) / (3 + 2));
  EXPECT_DOUBLE_EQ(h.prior[0], 0.5);
  EXPECT_DOUBLE_EQ(h.start[0], 2.0 / 3);
  // Line 2 leans slightly to other on its own; after a confident goal line the HMM calls it goal.
  const std::vector<std::vector<double>> post{{0.05, 0.95}, {0.99, 0.01}, {0.45, 0.55}};
  EXPECT_EQ(viterbi(h, post, 1.0), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ(viterbi(h, post, 0.0), (std::vector<int>{1, 0, 1}));
}
