// Minute stamps: added time, half-time, the periods they fall in, and refusals.
#include <gtest/gtest.h>

#include "football/clock.h"

using namespace dmlkit::football;

TEST(FootballClock, StoppageTimeStaysInItsHalf) {
  MatchMinute m;
  ASSERT_TRUE(parse_minute("45+2'", m));
  EXPECT_EQ(m.period, 1);
  EXPECT_EQ(m.minute, 45);
  EXPECT_EQ(m.added, 2);
  EXPECT_DOUBLE_EQ(m.clock_s, 2820);
  EXPECT_DOUBLE_EQ(seconds_into_period(m), 2820);
  ASSERT_TRUE(parse_minute("90+4", m));
  EXPECT_EQ(m.period, 2);
  EXPECT_DOUBLE_EQ(seconds_into_period(m), 45 * 60 + 4 * 60);
  ASSERT_TRUE(parse_minute(" 90 + 4 ' ", m));
  EXPECT_EQ(m.added, 4);
  ASSERT_TRUE(parse_minute("105+1", m));
  EXPECT_EQ(m.period, 3);
}

TEST(FootballClock, HalfTimeFullTimeAndPlainMinutes) {
  MatchMinute m;
  ASSERT_TRUE(parse_minute("HT", m));
  EXPECT_EQ(m.period, 1);
  EXPECT_DOUBLE_EQ(m.clock_s, 2700);
  ASSERT_TRUE(parse_minute("ft", m));
  EXPECT_EQ(m.period, 2);
  EXPECT_DOUBLE_EQ(seconds_into_period(m), 2700);
  ASSERT_TRUE(parse_minute("67'", m));
  EXPECT_EQ(m.period, 2);
  EXPECT_DOUBLE_EQ(m.clock_s, 67 * 60);
  EXPECT_DOUBLE_EQ(seconds_into_period(m), 22 * 60);
  ASSERT_TRUE(parse_minute("46\xE2\x80\x99", m));  // typographic apostrophe
  EXPECT_EQ(m.period, 2);
  EXPECT_DOUBLE_EQ(seconds_into_period(m), 60);
  ASSERT_TRUE(parse_minute("45", m));
  EXPECT_EQ(m.period, 1);
  ASSERT_TRUE(parse_minute("0", m));
  EXPECT_DOUBLE_EQ(m.clock_s, 0);
  ASSERT_TRUE(parse_minute("66:12", m));
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.period, 2);
  EXPECT_DOUBLE_EQ(m.clock_s, 66 * 60 + 12);
}

TEST(FootballClock, RefusesWhatIsNotAMinute) {
  MatchMinute m;
  std::string why;
  for (const char* bad : {"", "abc", "67x", "47+2", "121", "45+", "-3", "12:75", "90+45", "1'2"}) {
    EXPECT_FALSE(parse_minute(bad, m, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}
