// Readers of the shipped real data (appsync feed, IDSSE XML, Wyscout JSON), SoccerNet files and the
// CSV format, and their errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/data_dir.h"
#include "core/error.h"
#include "football/event_stream.h"
#include "football/labels.h"
#include "football/lines.h"

using namespace dmlkit::football;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("dmlkit-football-" + name);
  std::ofstream(p) << text;
  return p.string();
}
int count(const std::vector<TimedEvent>& ev, const char* label) {
  int n = 0;
  for (const auto& e : ev) n += e.label == coarse_index(label);
  return n;
}
}  // namespace

TEST(FootballReaders, AppsyncFeedLinesTimesAndAddedTime) {
  const auto m = read_appsync_feed(dmlkit::data_path("football/appsync/so0102sim_match_02.json"));
  EXPECT_EQ(m.lines.size(), 125u);  // SOURCE.md: 125 text lines in match 02
  ASSERT_EQ(m.period_start_wall_s.size(), 2u);
  EXPECT_DOUBLE_EQ(m.period_start_wall_s[1] - m.period_start_wall_s[0], 63 * 60);  // 16:30:47 -> 17:33:47
  int goals = 0, added = 0;
  for (const auto& l : m.lines) {
    goals += l.label == coarse_index("goal");
    added += l.minute.added > 0;
    EXPECT_TRUE(l.has_true_time);
  }
  EXPECT_EQ(goals, 7);  // 4 goals, 3 with an assist line
  EXPECT_GT(added, 0);  // 45+1 and 90+N stamps
  // The first goal: "0:40" on the clock, stamped minute 1, wall 16:31:39 = 52 s after the kick-off.
  const auto& g = m.lines[2];
  EXPECT_EQ(g.source_label, "score_change");
  EXPECT_EQ(g.minute.text, "1");
  EXPECT_DOUBLE_EQ(g.true_s, 52);
}

TEST(FootballReaders, IdsseOfficialEvents) {
  const auto s = read_idsse_xml(dmlkit::data_path("football/idsse/sportec_events_J03WPY.xml"));
  EXPECT_EQ(count(s.events, "goal"), 1);
  EXPECT_EQ(count(s.events, "card"), 9);
  EXPECT_EQ(count(s.events, "substitution"), 9);
  EXPECT_EQ(count(s.events, "corner"), 11);
  for (const auto& e : s.events)
    if (e.label == coarse_index("goal")) {
      EXPECT_EQ(e.period, 2);
      EXPECT_NEAR(e.t_s, 84, 1.0);  // 46:24 of the game clock
    }
}

TEST(FootballReaders, WyscoutFinalHasSixGoals) {
  const auto s = read_wyscout_json(dmlkit::data_path("football/wyscout/2058017.json"));
  EXPECT_EQ(count(s.events, "goal"), 6);  // France 4-2 Croatia, one own goal
}

TEST(FootballReaders, SoccerNetLabelsAndPredictions) {
  const auto labels = write_temp("labels.json", R"({"annotations": [
    {"gameTime": "1 - 12:34", "label": "Goal", "position": "754000", "team": "home", "visibility": "visible"},
    {"gameTime": "2 - 00:10", "label": "Yellow card", "team": "away", "visibility": "not shown"}]})");
  const auto a = read_soccernet_json(labels);
  ASSERT_EQ(a.events.size(), 2u);
  EXPECT_EQ(a.events[0].label, coarse_index("goal"));
  EXPECT_DOUBLE_EQ(a.events[0].t_s, 754);
  EXPECT_EQ(a.events[1].period, 2);
  EXPECT_DOUBLE_EQ(a.events[1].t_s, 10);  // from gameTime
  EXPECT_FALSE(a.events[1].visible);
  const auto preds = write_temp("preds.json", R"({"predictions": [
    {"gameTime": "1 - 0:12", "label": "Corner", "position": "12000", "half": "1", "confidence": "0.53"}]})");
  const auto p = read_soccernet_json(preds);
  EXPECT_EQ(p.format, "soccernet-predictions");
  EXPECT_DOUBLE_EQ(p.events[0].confidence, 0.53);
  // Our writer produces what the reader reads.
  const auto back = write_temp("back.json", soccernet_predictions_json(p.events, "g"));
  EXPECT_DOUBLE_EQ(read_soccernet_json(back).events[0].t_s, 12);
  EXPECT_THROW(read_soccernet_json(write_temp("bad.json", R"({"predictions": [{"label": "Goal"}]})")), dmlkit::Error);
}

TEST(FootballReaders, CsvLinesAndTheirErrors) {
  const auto ok = write_temp("ok.csv", "minute,text,label\n45+2',\"Goal! A header.\",goal\nHT,Half-time,other\n");
  const auto m = read_lines_csv(ok);
  ASSERT_EQ(m.lines.size(), 2u);
  EXPECT_EQ(m.lines[0].label, coarse_index("goal"));
  EXPECT_EQ(m.lines[0].minute.added, 2);
  try {
    read_lines_csv(write_temp("bad.csv", "minute,text\n12',ok\n4x',bad\n"));
    FAIL();
  } catch (const dmlkit::Error& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "minute");
  }
  EXPECT_THROW(read_lines_csv(write_temp("lab.csv", "minute,text,label\n12',x,gaol\n")), dmlkit::Error);
}
