// From tagged lines to highlight segments (specs D.3 steps 3-4, [R]: the paper was not found):
// 1. merge: successive lines with the same label form one event unit while the gap between
//    neighbouring lines' times is at most max_gap_s (the goal line and its assist line; a run of
//    throw-ins);
// 2. map to video time: t_video = kickoff_s[period] + (clock_s - period_base_s(period)) - lag_s,
//    where clock_s is the stamp's game clock (clock.h: "67'" is 67:00, the end of the minute, as
//    the spec's formula reads it), kickoff_s the video second of each period's kick-off and lag_s
//    the correction for live text lagging the pictures (estimate_lag_s measures it where a feed
//    has both clocks);
// 3. pad: the segment of a unit is [t_first - pre(label), t_last + post(label)] (a goal needs its
//    build-up). [A] the default paddings below are our choice; --padding overrides them.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "football/lines.h"
#include "football/tagger.h"

namespace dmlkit::football {

struct VideoClock {
  std::vector<double> kickoff_s;  // video second of each period's kick-off (index period-1)
  double lag_s = 0;
  // Video second of `t_s` seconds after `period`'s kick-off (no lag). Throws Error if the period
  // has no kick-off.
  double video_s(int period, double t_s) const;
  // Video second of a live-text line (lag subtracted).
  double line_video_s(const MatchMinute& m) const { return video_s(m.period, seconds_into_period(m)) - lag_s; }
};

struct Padding {
  double pre_s = 5, post_s = 5;
};
// Per coarse label; defaults (s, pre/post): goal 25/15, shot 10/5, save 10/5, corner 5/15,
// free_kick 5/15, foul 8/4, card 10/5, substitution 5/10, offside 10/4, penalty 10/20, other 5/5.
std::vector<Padding> default_padding();
// Applies "label=pre:post,label=pre:post" to `padding` (Error naming the bad entry).
void parse_padding(const std::string& spec, std::vector<Padding>& padding);

struct EventUnit {
  int label = kOther;
  std::vector<size_t> lines;  // indices into the match's lines
  int period = 1;
  double first_s = 0, last_s = 0;  // video times of the first and last line
  double confidence = 0;           // max over its lines
};

// Merges successive lines (in the given order) with the same label whose video times are at most
// max_gap_s apart; times are computed by clock.line_video_s.
std::vector<EventUnit> merge_units(const std::vector<TextLine>& lines, const std::vector<Tagged>& tags,
                                   const VideoClock& clock, double max_gap_s);

struct Segment {
  int label = kOther;
  int period = 1;
  double spot_s = 0;   // video time of the event (the unit's first line, or the refined detection)
  double start_s = 0;  // video times of the clip
  double end_s = 0;
  double confidence = 1;
  std::string minute;  // the first line's stamp
  std::string text;    // the first line
  int lines = 1;
  bool refined = false;
};

// Segments of the units whose label is a highlight (every label but other unless keep_other).
std::vector<Segment> make_segments(const std::vector<EventUnit>& units, const std::vector<TextLine>& lines,
                                   const std::vector<Padding>& padding, bool keep_other = false);

// The lag of live text behind the video measured where both clocks exist: the median over lines
// with a true time of (line time by its stamp - true time), in seconds; 0 if there is none.
double estimate_lag_s(const std::vector<const MatchText*>& matches);
// The video clock of a feed taken as its own video: each period's kick-off at its wall-clock
// distance from the first (video second 0 = the first kick-off).
VideoClock feed_clock(const MatchText& feed);

// segments.json: {"segments": [{label, period, spot_s, start_s, end_s, confidence, minute, text,
// lines, refined}]} and its reader (Error naming the segment and field).
std::string segments_json(const std::vector<Segment>& segments, const nlohmann::ordered_json& inputs);
std::vector<Segment> read_segments_json(const std::string& path);

}  // namespace dmlkit::football
