// Live-text lines and timed events, the two inputs of the pipeline, and their readers:
// - live text: a CSV `minute,text[,label]` (any provider's export; labels of the coarse set) or
//   the appsync (Sportradar-style) feed's JSON event array, whose lines also carry the feed's label
//   and the true wall-clock time of their event;
// - timed events (event_stream.h) come from official event data or SoccerNet files.
// Times inside a match are (period, seconds since that period's kick-off); VideoClock (units.h)
// turns them into video seconds.
#pragma once
#include <string>
#include <vector>

#include "football/clock.h"

namespace dmlkit::football {

struct TextLine {
  long line = 0;           // 1-based line of the CSV, or the feed event's 0-based index
  MatchMinute minute;      // the stamp
  std::string text;
  int label = -1;          // coarse label index, -1 when unlabelled
  std::string source_label;  // the label as the file wrote it (feed type or CSV label)
  // Feed only: the event the line belongs to and its true time (wall clock since the kick-off of
  // the period).
  std::string event_id;
  bool has_true_time = false;
  int true_period = 0;
  double true_s = 0;
};

// A typed event with a time: ground truth (feed, official data, SoccerNet labels) or a detector's
// output (SoccerNet prediction file).
struct TimedEvent {
  int period = 1;
  double t_s = 0;          // seconds since the period's kick-off
  int label = -1;          // coarse label index
  std::string source_label;
  double confidence = 1;   // 1 for ground truth
  std::string id;
  bool visible = true;     // SoccerNet's visibility ("not shown" -> false)
};

struct MatchText {
  std::string name;  // file stem, e.g. "so0102sim_match_02"
  std::string path;
  std::vector<TextLine> lines;
  // Feed only: every typed event with its true time (also those without text), and the wall-clock
  // length of the break between periods (kickoff_gap_s[p] = wall(start of p+1) - wall(start of p)).
  std::vector<TimedEvent> events;
  std::vector<double> period_start_wall_s;  // index period-1; empty for CSV input
  bool has_true_times() const { return !period_start_wall_s.empty(); }
};

// CSV with a header holding `minute` and `text` (and optionally `label`, coarse labels). Throws
// Error(path, line, field, ...) on an unparseable minute or an unknown label.
MatchText read_lines_csv(const std::string& path);
// The appsync feed (JSON array of events with `commentaries`), as shipped in data/football/appsync.
MatchText read_appsync_feed(const std::string& path);
// By extension: .csv -> read_lines_csv, .json -> read_appsync_feed.
MatchText read_match_text(const std::string& path);

// Seconds since 1970 of an ISO-8601 time with an offset ("2020-05-16T16:30:47+00:00",
// "2022-10-15T13:01:28.310+02:00", "...Z"); false if it is not one.
bool parse_iso_time(const std::string& text, double& out_s);

}  // namespace dmlkit::football
