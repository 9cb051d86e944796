// Merging same-label lines, video time across halves with kick-off offsets and lag, padding, lag
// estimation from a feed with both clocks.
#include <gtest/gtest.h>

#include "football/labels.h"
#include "football/units.h"

using namespace dmlkit::football;

namespace {
TextLine line(const char* minute, const char* text = "") {
  TextLine l;
  EXPECT_TRUE(parse_minute(minute, l.minute));
  l.text = text;
  return l;
}
Tagged tag(const char* label, double conf = 1) { return {coarse_index(label), conf}; }
}  // namespace

TEST(FootballUnits, VideoTimeAcrossHalvesWithKickoffsAndLag) {
  VideoClock c;
  c.kickoff_s = {100, 3500};
  EXPECT_DOUBLE_EQ(c.line_video_s(line("45+2'").minute), 100 + 2820);
  EXPECT_DOUBLE_EQ(c.line_video_s(line("HT").minute), 100 + 2700);
  EXPECT_DOUBLE_EQ(c.line_video_s(line("46'").minute), 3500 + 60);
  EXPECT_DOUBLE_EQ(c.line_video_s(line("90+4").minute), 3500 + 2940);
  c.lag_s = 30;
  EXPECT_DOUBLE_EQ(c.line_video_s(line("46'").minute), 3500 + 30);
  EXPECT_THROW(c.line_video_s(line("100'").minute), dmlkit::Error);  // period 3 without a kick-off
}

TEST(FootballUnits, MergesSuccessiveSameLabelLinesWithinTheGap) {
  VideoClock c;
  c.kickoff_s = {0, 3000};
  const std::vector<TextLine> lines{line("10'"), line("10'"), line("12'"), line("13'"), line("13'"), line("45+1"), line("46'")};
  const std::vector<Tagged> tags{tag("goal", 0.9), tag("goal", 0.7), tag("corner"), tag("corner"), tag("shot"),
                                 tag("card"), tag("card")};
  auto units = merge_units(lines, tags, c, 60);
  ASSERT_EQ(units.size(), 5u);  // goal+goal | corner, corner (gap 60) | shot | card | card (other half)
  EXPECT_EQ(units[0].lines.size(), 2u);
  EXPECT_DOUBLE_EQ(units[0].confidence, 0.9);
  EXPECT_EQ(units[1].lines.size(), 2u);
  EXPECT_DOUBLE_EQ(units[1].first_s, 720);
  EXPECT_DOUBLE_EQ(units[1].last_s, 780);
  EXPECT_EQ(units[3].period, 1);
  EXPECT_EQ(units[4].period, 2);
  EXPECT_EQ(merge_units(lines, tags, c, 59).size(), 6u);  // the corners split
  // Padding per label: a goal keeps its build-up.
  auto pad = default_padding();
  parse_padding("goal=30:10", pad);
  const auto segs = make_segments(units, lines, pad);
  ASSERT_EQ(segs.size(), 5u);
  EXPECT_DOUBLE_EQ(segs[0].start_s, 600 - 30);
  EXPECT_DOUBLE_EQ(segs[0].end_s, 600 + 10);
  EXPECT_EQ(segs[0].lines, 2);
  EXPECT_THROW(parse_padding("gaol=3:4", pad), dmlkit::Error);
  EXPECT_THROW(parse_padding("goal=-3:4", pad), dmlkit::Error);
}

TEST(FootballUnits, LagIsTheMedianOfTextMinusTrueTime) {
  MatchText m;
  m.period_start_wall_s = {1000, 5000};
  for (double true_s : {30.0, 45.0, 50.0}) {  // all stamped "2'" = 120 s: differences 90, 75, 70
    TextLine l = line("2'");
    l.has_true_time = true;
    l.true_period = 1;
    l.true_s = true_s;
    m.lines.push_back(l);
  }
  EXPECT_DOUBLE_EQ(estimate_lag_s({&m}), 75);
  EXPECT_DOUBLE_EQ(feed_clock(m).kickoff_s[1], 4000);
}
