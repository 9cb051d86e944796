// ProgressBar: silent off a terminal, rate-limited redraws (with a fake clock), final newline.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/progress.h"

using dmlkit::ProgressBar;
using dmlkit::ProgressOptions;

namespace {

struct FakeClock {
  double now_s = 0;
};

ProgressOptions options(std::ostringstream& out, bool terminal, FakeClock* clock = nullptr) {
  ProgressOptions o;
  o.out = &out;
  o.is_terminal = terminal;
  o.bar_width = 10;
  o.min_redraw_interval_s = 0.1;
  if (clock) o.clock_s = [clock] { return clock->now_s; };
  return o;
}

size_t count_char(const std::string& s, char c) { return static_cast<size_t>(std::count(s.begin(), s.end(), c)); }

}  // namespace

TEST(ProgressBar, SilentWhenNotATerminal) {
  std::ostringstream out;
  {
    ProgressBar bar("fifo", 10, options(out, false));
    EXPECT_FALSE(bar.active());
    for (int i = 0; i <= 10; ++i) bar.update(i, "detail");
    bar.finish();
    EXPECT_EQ(bar.redraws(), 0u);
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressBar, RedrawsAreRateLimitedAndTheLineEndsWithANewline) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar("run", 100, options(out, true, &clock));
  ASSERT_TRUE(bar.active());
  bar.update(1);  // first update always draws
  clock.now_s = 0.05;
  bar.update(2);  // too soon
  bar.update(3);  // too soon
  clock.now_s = 0.2;
  bar.update(4);  // draws
  clock.now_s = 0.25;
  bar.update(5);  // too soon
  EXPECT_EQ(bar.redraws(), 2u);
  EXPECT_EQ(count_char(out.str(), '\n'), 0u);
  bar.finish();  // draws the latest state and ends the line
  EXPECT_EQ(bar.redraws(), 3u);
  bar.finish();  // idempotent
  bar.update(50);
  EXPECT_EQ(bar.redraws(), 3u);
  const std::string s = out.str();
  EXPECT_EQ(count_char(s, '\r'), 3u);
  EXPECT_EQ(count_char(s, '\n'), 1u);
  EXPECT_EQ(s.back(), '\n');
  // The final line shows the last update, not the last drawn one.
  EXPECT_NE(s.find("5/100\n"), std::string::npos) << s;
}

TEST(ProgressBar, LineShowsBarPercentCountAndDetail) {
  std::ostringstream out;
  ProgressBar bar("fifo", 160, options(out, false));
  bar.update(80, "t=12.5 h");
  EXPECT_EQ(bar.line(), "fifo [#####-----]  50.0% 80/160 t=12.5 h");
  bar.update(500);
  EXPECT_EQ(bar.line(), "fifo [##########] 100.0% 500/160");
  ProgressBar unknown("", 0, options(out, false));
  unknown.update(7);
  EXPECT_EQ(unknown.line(), "[----------] 7");
}

TEST(ProgressBar, ShorterLineOverwritesALongerOne) {
  std::ostringstream out;
  FakeClock clock;
  ProgressBar bar("x", 10, options(out, true, &clock));
  bar.update(1, "a long detail text");
  const size_t long_width = bar.line().size();
  clock.now_s = 1;
  bar.update(2);
  const std::string s = out.str();
  const std::string second = s.substr(s.rfind('\r') + 1);
  EXPECT_EQ(second.size(), long_width);  // padded with spaces to cover the old text
  EXPECT_EQ(second.find("a long"), std::string::npos);
}

TEST(ProgressBar, DestructorFinishesTheLine) {
  std::ostringstream out;
  {
    ProgressBar bar("x", 3, options(out, true));
    bar.update(3);
  }
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_EQ(count_char(out.str(), '\n'), 1u);
}
