// Tests of the shared shuffles of core/rng.h: a full shuffle is a permutation and reproducible,
// a partial one yields a uniform sample without replacement of the requested size.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "core/rng.h"

namespace dmlkit {
namespace {

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(Rng, ShuffleIsAReproduciblePermutation) {
  auto a = iota(50), b = iota(50);
  Rng ra(7), rb(7);
  ra.shuffle(a.begin(), a.end());
  rb.shuffle(b.begin(), b.end());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, iota(50));
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, iota(50));
  std::vector<int> empty;
  ra.shuffle(empty.begin(), empty.end());  // no draw, no crash
}

TEST(Rng, ShuffleIsUniformOverPositions) {
  // Element 0 of 4 lands in each position about 1/4 of the time.
  std::map<int, int> where;
  Rng rng(11);
  for (int t = 0; t < 20000; ++t) {
    auto v = iota(4);
    rng.shuffle(v.begin(), v.end());
    ++where[static_cast<int>(std::find(v.begin(), v.end(), 0) - v.begin())];
  }
  for (int p = 0; p < 4; ++p) EXPECT_NEAR(where[p] / 20000.0, 0.25, 0.02) << "position " << p;
}

TEST(Rng, SamplePrefixDrawsDistinctElementsAndClampsToTheSize) {
  auto v = iota(30);
  Rng rng(3);
  EXPECT_EQ(rng.sample_prefix(v.begin(), v.end(), 10), 10u);
  std::vector<int> head(v.begin(), v.begin() + 10);
  std::sort(head.begin(), head.end());
  EXPECT_TRUE(std::adjacent_find(head.begin(), head.end()) == head.end());
  std::sort(v.begin(), v.end());
  EXPECT_EQ(v, iota(30));  // still a permutation
  auto small = iota(5);
  EXPECT_EQ(rng.sample_prefix(small.begin(), small.end(), 9), 5u);
  // Each element is in a 1-of-4 sample about 1/4 of the time.
  std::map<int, int> hits;
  for (int t = 0; t < 20000; ++t) {
    auto w = iota(4);
    rng.sample_prefix(w.begin(), w.end(), 1);
    ++hits[w[0]];
  }
  for (int e = 0; e < 4; ++e) EXPECT_NEAR(hits[e] / 20000.0, 0.25, 0.02) << "element " << e;
}

}  // namespace
}  // namespace dmlkit
