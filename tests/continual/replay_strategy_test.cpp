// Tests of the replay sampling strategies on hand-built feature sets (spec B.7).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "continual/replay/strategies.h"
#include "core/error.h"

namespace dmlkit::continual {
namespace {

// Class 0: unit vectors at angles 0, +-10, +-20, +-30, +-40 degrees from the x axis (rows 0..8 in
// that order), so the prototype is the x axis and the cosines are cos(angle). Class 1: rows 9..12
// on the y axis side.
learn::Matrix fan(std::vector<int>& labels) {
  const double deg[] = {0, 10, -10, 20, -20, 30, -30, 40, -40};
  learn::Matrix f(13, 2);
  labels.clear();
  for (int i = 0; i < 9; ++i) {
    const double r = deg[i] * M_PI / 180.0;
    f(i, 0) = static_cast<float>(3.0 * std::cos(r));  // norms differ: only angles matter
    f(i, 1) = static_cast<float>(3.0 * std::sin(r));
    labels.push_back(0);
  }
  const double deg1[] = {90, 80, 100, 60};
  for (int i = 0; i < 4; ++i) {
    const double r = deg1[i] * M_PI / 180.0;
    f(9 + i, 0) = static_cast<float>(std::cos(r));
    f(9 + i, 1) = static_cast<float>(std::sin(r));
    labels.push_back(1);
  }
  return f;
}

std::set<size_t> as_set(const std::vector<size_t>& v) { return {v.begin(), v.end()}; }

TEST(ReplayStrategies, MidAngleTakesTheSamplesClosestToTheMedianCosine) {
  std::vector<int> labels;
  const auto f = fan(labels);
  // Class 0 only (first 9 rows): cosines sorted cos40,cos40,cos30,cos30,cos20,... median = cos 20.
  const std::vector<int> l0(labels.begin(), labels.begin() + 9);
  const learn::Matrix f0 = f.topRows(9);
  Rng rng(1);
  EXPECT_EQ(as_set(AngleStrategy(AngleMode::mid).select(f0, l0, 2, rng)), (std::set<size_t>{3, 4}));
  // k = 4: then the next closest |cos - cos20| are the +-10 rows (cos10 - cos20 < cos20 - cos30).
  EXPECT_EQ(as_set(AngleStrategy(AngleMode::mid).select(f0, l0, 4, rng)), (std::set<size_t>{1, 2, 3, 4}));
  EXPECT_EQ(as_set(AngleStrategy(AngleMode::small).select(f0, l0, 3, rng)), (std::set<size_t>{0, 1, 2}));
  EXPECT_EQ(as_set(AngleStrategy(AngleMode::large).select(f0, l0, 2, rng)), (std::set<size_t>{7, 8}));
}

TEST(ReplayStrategies, AngleSelectionSplitsTheBudgetPerClass) {
  std::vector<int> labels;
  const auto f = fan(labels);
  Rng rng(1);
  const auto sel = AngleStrategy(AngleMode::mid).select(f, labels, 4, rng);
  ASSERT_EQ(sel.size(), 4u);
  EXPECT_EQ(std::count_if(sel.begin(), sel.end(), [](size_t i) { return i < 9; }), 2);
  // Class 1 (90, 80, 100, 60 degrees; prototype ~82.5 degrees): cosines .991, .999, .954, .924;
  // lower median .954 (the 100-degree row), then the 60-degree row is next closest (.030 < .037).
  EXPECT_EQ(as_set(std::vector<size_t>(sel.begin() + 2, sel.end())), (std::set<size_t>{11, 12}));
}

TEST(ReplayStrategies, LowerMedian) {
  EXPECT_DOUBLE_EQ(lower_median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(lower_median({4, 1, 3, 2}), 2.0);
}

TEST(ReplayStrategies, HerdingPicksTheRowNearestTheMeanFirst) {
  std::vector<int> labels;
  const auto f = fan(labels);
  const std::vector<int> l0(labels.begin(), labels.begin() + 9);
  Rng rng(1);
  const auto sel = HerdingStrategy().select(f.topRows(9), l0, 3, rng);
  ASSERT_EQ(sel.size(), 3u);
  // Class mean of the normalised rows is (0.901, 0): first the 0-degree row, then +10 (running mean
  // (0.992, 0.087): squared distance 0.016 vs 0.034 for +-20), then -10 to cancel the y component.
  EXPECT_EQ(sel, (std::vector<size_t>{0, 1, 2}));
}

TEST(ReplayStrategies, RandomReservoirAndClassBalancedSizesAndDeterminism) {
  std::vector<int> labels;
  const auto f = fan(labels);
  for (const std::string name : {"random", "reservoir", "class-balanced", "angle-mid-stream"}) {
    const auto s = make_replay_strategy(name);
    Rng a(9), b(9);
    const auto x = s->select(f, labels, 6, a);
    EXPECT_EQ(x, s->select(f, labels, 6, b)) << name;
    EXPECT_EQ(x.size(), 6u) << name;
    EXPECT_EQ(as_set(x).size(), x.size()) << name;  // no duplicates
    for (size_t i : x) EXPECT_LT(i, labels.size());
  }
  Rng rng(4);
  const auto cb = ClassBalancedStrategy().select(f, labels, 6, rng);
  EXPECT_EQ(std::count_if(cb.begin(), cb.end(), [](size_t i) { return i >= 9; }), 3);
  EXPECT_THROW(make_replay_strategy("nope"), Error);
}

TEST(ReplayStrategies, ReservoirIsUniformOverTheStream) {
  std::vector<int> labels(20, 0);
  learn::Matrix f = learn::Matrix::Ones(20, 1);
  std::vector<int> hits(20, 0);
  Rng rng(12);
  for (int t = 0; t < 4000; ++t)
    for (size_t i : ReservoirStrategy().select(f, labels, 5, rng)) ++hits[i];
  for (int h : hits) EXPECT_NEAR(h / 4000.0, 0.25, 0.04);
}

TEST(ReplayStrategies, StreamingMidAngleEnforcesTheClassQuota) {
  // 12 rows of class 0 first, then 12 of class 1: with capacity 6 the buffer ends with 3 of each.
  learn::Matrix f(24, 2);
  std::vector<int> labels;
  Rng gen(5);
  for (int i = 0; i < 24; ++i) {
    f(i, 0) = static_cast<float>(1.0 + gen.uniform());
    f(i, 1) = static_cast<float>(gen.uniform() - 0.5) * (i < 12 ? 1.0f : -1.0f);
    labels.push_back(i < 12 ? 0 : 1);
  }
  Rng rng(3);
  AngleMidStreamBuffer buf(f, 6);
  // The new class evicts class-0 rows until it holds its quota 6 / 2 = 3.
  for (size_t i = 0; i < 15; ++i) buf.offer(i, labels[i], rng);
  auto rows = buf.rows();
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](size_t i) { return i >= 12; }), 3);
  // Later rows of a class at quota either replace its least-mid row or fall back to reservoir
  // sampling (which may pick any slot): the buffer stays full and class 1 keeps at least its quota.
  for (size_t i = 15; i < 24; ++i) buf.offer(i, labels[i], rng);
  rows = buf.rows();
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_GE(std::count_if(rows.begin(), rows.end(), [](size_t i) { return i >= 12; }), 3);
}

TEST(ReplayStrategies, StreamingMidAngleReplacesTheLeastMidRowOfItsClass) {
  // Buffer of 3 rows at 0, 40 and 20 degrees: prototype at 20 degrees, member cosines cos20,
  // cos20, 1, lower median cos20, so the least-mid member is the 20-degree row (distance
  // 1 - cos20 = .060). A row at 45 degrees (25 from the prototype: |cos25 - cos20| = .034) is closer
  // to the median and replaces it, without touching the random stream.
  learn::Matrix f(4, 2);
  const double deg[] = {0, 40, 20, 45};
  for (int i = 0; i < 4; ++i) {
    f(i, 0) = static_cast<float>(std::cos(deg[i] * M_PI / 180));
    f(i, 1) = static_cast<float>(std::sin(deg[i] * M_PI / 180));
  }
  Rng rng(1);
  AngleMidStreamBuffer buf(f, 3);
  for (size_t i = 0; i < 4; ++i) buf.offer(i, 0, rng);
  EXPECT_EQ(buf.rows(), (std::vector<size_t>{0, 1, 3}));
}

}  // namespace
}  // namespace dmlkit::continual
