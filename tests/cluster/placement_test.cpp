// Placement kinds: each turns a GPU count into slices exactly as documented in placement.cpp.
#include "cluster/model/placement.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace dmlkit::cluster {
namespace {

Placement place(std::vector<int> free, int gpus, PlacementKind kind) {
  FreeGpus pool(std::move(free));
  Placement p;
  EXPECT_TRUE(pool.place(gpus, kind, p));
  return p;
}

TEST(Placement, ParsesAndNamesKinds) {
  for (auto k : {PlacementKind::Consolidate, PlacementKind::Spread, PlacementKind::FirstFit, PlacementKind::MostFree})
    EXPECT_EQ(parse_placement_kind(placement_kind_name(k)), k);
  EXPECT_EQ(parse_placement_kind("first-fit"), PlacementKind::FirstFit);
  EXPECT_THROW(parse_placement_kind("random"), Error);
}

TEST(Placement, ConsolidateBestFitsOnOneServer) {
  // Server 1 has exactly 2 free: the best fit, although servers 0 and 2 also have room.
  EXPECT_EQ(place({4, 2, 3}, 2, PlacementKind::Consolidate), (Placement{{1, 2}}));
  EXPECT_EQ(place({4, 2, 3}, 3, PlacementKind::Consolidate), (Placement{{2, 3}}));
  EXPECT_EQ(place({4, 2, 3}, 4, PlacementKind::Consolidate), (Placement{{0, 4}}));
}

TEST(Placement, ConsolidateUsesFewestServers) {
  // Largest first, then the remainder best-fits: 6 = 4 + 2, not 4 + 2 of the 3-GPU server.
  EXPECT_EQ(place({4, 3, 2}, 6, PlacementKind::Consolidate), (Placement{{0, 4}, {2, 2}}));
  EXPECT_EQ(place({3, 3, 2, 2}, 5, PlacementKind::Consolidate), (Placement{{0, 3}, {2, 2}}));
  EXPECT_EQ(place({1, 1, 1, 4, 4}, 9, PlacementKind::Consolidate), (Placement{{3, 4}, {4, 4}, {0, 1}}));
}

TEST(Placement, SpreadWaterFills) {
  EXPECT_EQ(place({4, 4, 4, 4}, 4, PlacementKind::Spread), (Placement{{0, 1}, {1, 1}, {2, 1}, {3, 1}}));
  // Each GPU goes to the server with the most free GPUs left: 4,2 -> 3,2 -> 2,2 -> 1,2 -> 1,1.
  EXPECT_EQ(place({4, 2}, 4, PlacementKind::Spread), (Placement{{0, 3}, {1, 1}}));
  EXPECT_EQ(place({0, 2, 2}, 3, PlacementKind::Spread), (Placement{{1, 2}, {2, 1}}));
}

TEST(Placement, FirstFitTakesServersInIdOrder) {
  EXPECT_EQ(place({1, 0, 4, 4}, 3, PlacementKind::FirstFit), (Placement{{0, 1}, {2, 2}}));
  EXPECT_EQ(place({4, 4}, 1, PlacementKind::FirstFit), (Placement{{0, 1}}));
}

TEST(Placement, MostFreeTakesTheEmptiestServerFirst) {
  EXPECT_EQ(place({2, 4, 3}, 5, PlacementKind::MostFree), (Placement{{1, 4}, {2, 1}}));
  EXPECT_EQ(place({2, 4, 3}, 1, PlacementKind::MostFree), (Placement{{1, 1}}));
  EXPECT_EQ(place({2, 4, 4}, 1, PlacementKind::MostFree), (Placement{{1, 1}}));  // tie: lowest id
  EXPECT_EQ(place({2, 4, 3}, 1, PlacementKind::Consolidate), (Placement{{0, 1}}));
}

TEST(Placement, TakesAndReleases) {
  FreeGpus pool({4, 4});
  Placement p;
  ASSERT_TRUE(pool.place(6, PlacementKind::Consolidate, p));
  EXPECT_EQ(placement_gpus(p), 6);
  EXPECT_EQ(pool.total(), 2);
  EXPECT_EQ(pool.on(0) + pool.on(1), 2);
  // Does not fit: nothing is taken.
  Placement q;
  for (auto k : {PlacementKind::Consolidate, PlacementKind::Spread, PlacementKind::FirstFit, PlacementKind::MostFree}) {
    EXPECT_FALSE(pool.place(3, k, q));
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(pool.total(), 2);
  }
  pool.release(p);
  EXPECT_EQ(pool.total(), 8);
  EXPECT_EQ(pool.per_server(), (std::vector<int>{4, 4}));
  ASSERT_TRUE(pool.place(0, PlacementKind::Spread, q));
  EXPECT_TRUE(q.empty());
}

TEST(Placement, EveryKindPlacesExactlyWhatFits) {
  // Exhaustive over small free vectors: every kind places all GPUs, within each server's free
  // GPUs, each server at most once, whenever the total fits.
  for (auto k : {PlacementKind::Consolidate, PlacementKind::Spread, PlacementKind::FirstFit, PlacementKind::MostFree}) {
    for (int a = 0; a <= 4; ++a)
      for (int b = 0; b <= 4; ++b)
        for (int c = 0; c <= 4; ++c)
          for (int g = 1; g <= a + b + c; ++g) {
            std::vector<int> free = {a, b, c};
            FreeGpus pool(free);
            Placement p;
            ASSERT_TRUE(pool.place(g, k, p));
            EXPECT_EQ(placement_gpus(p), g);
            std::vector<int> seen(3, 0);
            for (const auto& s : p) {
              EXPECT_GT(s.gpus, 0);
              EXPECT_LE(s.gpus, free[s.server]);
              EXPECT_EQ(seen[s.server]++, 0);
            }
            EXPECT_EQ(pool.total(), a + b + c - g);
          }
  }
}

}  // namespace
}  // namespace dmlkit::cluster
