// Conformance of every registered replay strategy (continual/replay/strategy.cpp): on a small
// random pool of three classes, each budget yields at most `budget` distinct row indices, all in
// range, and the same seed gives the same selection. A new strategy is covered by registering it.
#include <gtest/gtest.h>

#include <set>

#include "continual/replay/strategy.h"
#include "core/error.h"

namespace dmlkit::continual {
namespace {

TEST(ReplayConformance, EveryRegisteredStrategyKeepsTheBudget) {
  Rng data(21);
  const size_t rows = 40;
  learn::Matrix features(rows, 6);
  std::vector<int> labels(rows);
  for (size_t i = 0; i < rows; ++i) {
    labels[i] = static_cast<int>(i % 3);
    for (int c = 0; c < 6; ++c) features(static_cast<Eigen::Index>(i), c) = static_cast<float>(data.uniform() - 0.5);
  }
  ASSERT_FALSE(replay_strategy_registry().entries().empty());
  for (const auto& entry : replay_strategy_registry().entries()) {
    SCOPED_TRACE(entry.name);
    EXPECT_FALSE(entry.summary.empty());
    const auto strategy = entry.make();
    EXPECT_EQ(strategy->name(), entry.name);
    for (size_t budget : {size_t{0}, size_t{1}, size_t{7}, size_t{12}, rows, rows + 5}) {
      Rng a(3), b(3);
      const auto x = strategy->select(features, labels, budget, a);
      EXPECT_LE(x.size(), budget) << "budget " << budget;
      EXPECT_EQ(std::set<size_t>(x.begin(), x.end()).size(), x.size()) << "distinct, budget " << budget;
      for (size_t i : x) EXPECT_LT(i, rows);
      EXPECT_EQ(x, strategy->select(features, labels, budget, b)) << "deterministic, budget " << budget;
    }
  }
  EXPECT_THROW(make_replay_strategy("nope"), Error);
}

}  // namespace
}  // namespace dmlkit::continual
