// Parsing of match-minute stamps (clock.h).
#include "football/clock.h"

#include <cctype>

namespace dmlkit::football {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Reads digits at the front of s (at most 4); false if none.
bool take_int(std::string_view& s, int& out) {
  size_t n = 0;
  int v = 0;
  while (n < s.size() && n < 4 && std::isdigit(static_cast<unsigned char>(s[n]))) v = v * 10 + (s[n++] - '0');
  if (n == 0 || (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n])))) return false;
  s.remove_prefix(n);
  out = v;
  return true;
}

bool fail(std::string* why, const char* text) {
  if (why) *why = text;
  return false;
}

int period_of_minute(int minute) {
  if (minute <= 45) return 1;
  if (minute <= 90) return 2;
  if (minute <= 105) return 3;
  return 4;
}

}  // namespace

double period_base_s(int period) {
  switch (period) {
    case 1: return 0;
    case 2: return 2700;
    case 3: return 5400;
    default: return 6300;
  }
}

int period_last_minute(int period) {
  switch (period) {
    case 1: return 45;
    case 2: return 90;
    case 3: return 105;
    default: return 120;
  }
}

bool parse_minute(std::string_view text, MatchMinute& out, std::string* why) {
  std::string_view s = trim(text);
  out = MatchMinute{};
  out.text = std::string(s);
  if (s.empty()) return fail(why, "empty minute");
  std::string upper;
  for (char c : s) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "HT" || upper == "H/T" || upper == "HALF-TIME" || upper == "HALF TIME") {
    out.period = 1, out.minute = 45, out.clock_s = 2700;
    return true;
  }
  if (upper == "FT" || upper == "F/T" || upper == "FULL-TIME" || upper == "FULL TIME") {
    out.period = 2, out.minute = 90, out.clock_s = 5400;
    return true;
  }
  // Strip a trailing apostrophe (ASCII, or U+2019 as UTF-8) or "min".
  auto strip_suffix = [&](std::string_view suf) {
    if (s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf) {
      s.remove_suffix(suf.size());
      s = trim(s);
    }
  };
  strip_suffix("'");
  strip_suffix("\xE2\x80\x99");
  strip_suffix("min");
  int minute = 0;
  if (!take_int(s, minute)) return fail(why, "expected a minute such as 67', 45+2' or HT");
  s = trim(s);
  if (!s.empty() && s.front() == ':') {  // a clock mm:ss
    s.remove_prefix(1);
    int sec = 0;
    if (!take_int(s, sec) || !trim(s).empty() || sec > 59) return fail(why, "expected a clock mm:ss");
    if (minute > 150) return fail(why, "clock beyond 150 minutes");
    out.minute = minute;
    out.clock_s = 60.0 * minute + sec;
    out.exact = true;
    out.period = minute < 45 ? 1 : minute < 90 ? 2 : minute < 105 ? 3 : 4;
    return true;
  }
  if (minute > 120) return fail(why, "minute beyond 120");
  int added = 0;
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    s = trim(s);
    if (!take_int(s, added)) return fail(why, "expected added minutes after '+'");
    if (added > 30) return fail(why, "more than 30 added minutes");
    if (minute != 45 && minute != 90 && minute != 105 && minute != 120)
      return fail(why, "added time only after 45, 90, 105 or 120");
    strip_suffix("'");
    strip_suffix("\xE2\x80\x99");
  }
  if (!trim(s).empty()) return fail(why, "expected a minute such as 67', 45+2' or HT");
  out.minute = minute;
  out.added = added;
  out.period = period_of_minute(minute == 0 ? 1 : minute);
  out.clock_s = 60.0 * (minute + added);
  return true;
}

}  // namespace dmlkit::football
