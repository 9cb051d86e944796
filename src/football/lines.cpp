// Readers of live text (lines.h).
#include "football/lines.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "football/labels.h"

namespace dmlkit::football {
namespace {

long days_from_civil(long y, unsigned m, unsigned d) {  // H. Hinnant's algorithm
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

}  // namespace

bool parse_iso_time(const std::string& t, double& out_s) {
  int y, mo, d, h, mi;
  double s;
  int n = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &s, &n) != 6) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s < 0 || s >= 61) return false;
  double offset = 0;
  const std::string rest = t.substr(static_cast<size_t>(n));
  if (rest == "Z" || rest.empty()) {
    offset = 0;
  } else {
    int oh, om;
    char sign;
    if (std::sscanf(rest.c_str(), "%c%2d:%2d", &sign, &oh, &om) != 3 || (sign != '+' && sign != '-')) return false;
    offset = (sign == '+' ? 1 : -1) * (oh * 3600.0 + om * 60.0);
  }
  out_s = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400.0 + h * 3600.0 +
          mi * 60.0 + s - offset;
  return true;
}

MatchText read_lines_csv(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  const int cm = t.column("minute"), ct = t.column("text");
  const int cl = t.has_column("label") ? t.column("label") : -1;
  MatchText m;
  m.name = stem(path);
  m.path = path;
  for (size_t r = 0; r < t.rows(); ++r) {
    TextLine l;
    l.line = t.line_of(r);
    std::string why;
    if (!parse_minute(t.str(r, cm), l.minute, &why))
      t.fail(r, cm, "cannot read '" + std::string(t.str(r, cm)) + "': " + why);
    l.text = std::string(t.str(r, ct));
    if (cl >= 0) {
      l.source_label = std::string(t.str(r, cl));
      if (!l.source_label.empty()) {
        l.label = coarse_index(l.source_label);
        if (l.label < 0)
          t.fail(r, cl, "unknown label '" + l.source_label + "' (coarse labels: goal, shot, save, corner, free_kick, "
                        "foul, card, substitution, offside, penalty, other)");
      }
    }
    m.lines.push_back(std::move(l));
  }
  return m;
}

MatchText read_appsync_feed(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, 0, "", std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_array()) throw Error(path, 0, "", "expected the feed's JSON array of events");
  MatchText m;
  m.name = stem(path);
  m.path = path;
  auto fail = [&](size_t i, const std::string& field, const std::string& msg) -> void {
    throw Error(path, 0, "event " + std::to_string(i) + " " + field, msg);
  };
  // Period starts first (records are not strictly in time order).
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& e = j[i];
    if (!e.is_object()) fail(i, "", "not an object");
    if (e.value("type", "") != "period_start") continue;
    const int p = e.value("period", 0);
    double w = 0;
    if (p < 1 || p > 4 || !parse_iso_time(e.value("time", ""), w)) fail(i, "period/time", "bad period_start record");
    if (m.period_start_wall_s.size() < static_cast<size_t>(p)) m.period_start_wall_s.resize(p, -1);
    m.period_start_wall_s[p - 1] = w;
  }
  if (m.period_start_wall_s.empty() || m.period_start_wall_s[0] < 0) throw Error(path, 0, "", "no period_start of period 1");
  for (double w : m.period_start_wall_s)
    if (w < 0) throw Error(path, 0, "", "a period without its period_start record");
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& e = j[i];
    const std::string type = e.value("type", "");
    double wall = 0;
    if (!parse_iso_time(e.value("time", ""), wall)) fail(i, "time", "not an ISO-8601 time");
    int period = e.contains("period") && e["period"].is_number_integer() ? e["period"].get<int>() : 0;
    if (period == 0) {  // match_started and the like: the period whose start precedes it
      period = 1;
      for (size_t p = 0; p < m.period_start_wall_s.size(); ++p)
        if (wall >= m.period_start_wall_s[p]) period = static_cast<int>(p) + 1;
    }
    if (period > static_cast<int>(m.period_start_wall_s.size())) fail(i, "period", "period without a period_start");
    const double true_s = wall - m.period_start_wall_s[period - 1];
    const std::string id = e.contains("id") ? e["id"].dump() : std::to_string(i);
    static const char* kMarkers[] = {"period_start", "break_start", "match_ended", "injury_time_shown",
                                     "video_assistant_referee", "video_assistant_referee_over"};
    const bool marker = std::find(std::begin(kMarkers), std::end(kMarkers), type) != std::end(kMarkers);
    if (!marker) {
      TimedEvent ev;
      ev.period = period;
      ev.t_s = true_s;
      ev.source_label = type;
      ev.label = coarse_index(feed_to_coarse(type));
      ev.id = id;
      m.events.push_back(ev);
    }
    if (!e.contains("commentaries")) continue;
    // The stamp: match_time (1-based minute), or 45+N / 90+N in added time; none before the kick-off.
    std::string stamp = "0";
    if (e.contains("match_time") && e["match_time"].is_number_integer()) {
      const int mt = e["match_time"].get<int>();
      const std::string st = e.value("stoppage_time", "");
      stamp = st.empty() ? std::to_string(mt) : std::to_string(period_last_minute(period)) + "+" + st;
    }
    for (const auto& c : e["commentaries"]) {
      TextLine l;
      l.line = static_cast<long>(i);
      std::string why;
      if (!parse_minute(stamp, l.minute, &why)) fail(i, "match_time", "cannot read '" + stamp + "': " + why);
      l.text = c.value("text", "");
      l.source_label = type;
      l.label = coarse_index(feed_to_coarse(type));
      l.event_id = id;
      l.has_true_time = true;
      l.true_period = period;
      l.true_s = true_s;
      m.lines.push_back(std::move(l));
    }
  }
  return m;
}

MatchText read_match_text(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (!std::filesystem::exists(path)) throw Error(path, 0, "", "no such file");
  if (ext == ".csv") return read_lines_csv(path);
  if (ext == ".json") return read_appsync_feed(path);
  throw Error(path, 0, "", "unknown live-text format (expected .csv with minute,text[,label] or the feed's .json)");
}

}  // namespace dmlkit::football
