// Match-minute stamps of live text ("67'", "45+2'", "90+4", "HT", "FT", "12:34") and the game
// clock they stand for. Periods: 1 and 2 (regulation halves), 3 and 4 (extra-time halves). A stamp
// "m'" is read as the spec's formula does (specs D.3): the game clock 60 m s, i.e. the end of the
// m-th minute, in the period whose minutes hold m (1-45, 46-90, 91-105, 106-120); "45+2" is the
// second added minute of period 1 (clock 45:00 + 2 min); "HT" is the end of period 1 (45:00), "FT"
// the end of period 2 (90:00). A clock "mm:ss" is exact, in the period its minute falls in.
#pragma once
#include <string>
#include <string_view>

namespace dmlkit::football {

struct MatchMinute {
  int period = 1;          // 1, 2 (halves), 3, 4 (extra-time halves)
  int minute = 0;          // as written (45 in "45+2")
  int added = 0;           // added minutes ("45+2" -> 2)
  double clock_s = 0;      // the game clock of the stamp, seconds from the match start (see above)
  bool exact = false;      // a "mm:ss" clock, not a minute stamp
  std::string text;        // as written, trimmed
};

// The game clock at which `period` starts: 0, 2700, 5400, 6300 s.
double period_base_s(int period);
// Nominal last regulation minute of a period: 45, 90, 105, 120.
int period_last_minute(int period);

// Parses a stamp; returns false (and leaves `why` set) if it is not one. Accepts a trailing
// apostrophe (' or the typographic ’), "min", and spaces around '+'.
bool parse_minute(std::string_view text, MatchMinute& out, std::string* why = nullptr);

// Seconds since the period's kick-off of a stamp (clock_s - period_base_s(period)).
inline double seconds_into_period(const MatchMinute& m) { return m.clock_s - period_base_s(m.period); }

}  // namespace dmlkit::football
