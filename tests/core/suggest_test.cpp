// "Did you mean": edit distance and the closest names (issue 20).
#include "core/suggest.h"

#include <gtest/gtest.h>

namespace dmlkit {
namespace {

TEST(Suggest, EditDistanceCountsTranspositionsAsOne) {
  EXPECT_EQ(edit_distance("cluster", "cluster"), 0);
  EXPECT_EQ(edit_distance("clster", "cluster"), 1);
  EXPECT_EQ(edit_distance("vgg61", "vgg16"), 1);
  EXPECT_EQ(edit_distance("Tiresias", "tiresias"), 0);
  EXPECT_EQ(edit_distance("", "abc"), 3);
}

TEST(Suggest, ClosestNamesFirstAndNothingForFarWords) {
  const std::vector<std::string> names = {"fifo", "srtf", "drf", "tetris", "tiresias", "optimus", "optimus-oracle"};
  EXPECT_EQ(closest_names("tiresia", names), (std::vector<std::string>{"tiresias"}));
  EXPECT_EQ(closest_names("fifi", names), (std::vector<std::string>{"fifo"}));
  EXPECT_EQ(closest_names("optimus-orcale", names).front(), "optimus-oracle");
  EXPECT_TRUE(closest_names("pollux", names).empty());
  EXPECT_EQ(did_you_mean("tiresia", names), " (did you mean 'tiresias'?)");
  EXPECT_EQ(did_you_mean("zzzzzz", names), "");
}

}  // namespace
}  // namespace dmlkit
