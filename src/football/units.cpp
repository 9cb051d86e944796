// Merging, video time and segments (units.h).
#include "football/units.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/stats.h"
#include "football/labels.h"

namespace dmlkit::football {

double VideoClock::video_s(int period, double t_s) const {
  if (period < 1 || period > static_cast<int>(kickoff_s.size()))
    throw Error("", 0, "kickoffs", "no video kick-off given for period " + std::to_string(period) + " (--kickoffs has " +
                                       std::to_string(kickoff_s.size()) + ")");
  return kickoff_s[period - 1] + t_s;
}

std::vector<Padding> default_padding() {
  // goal, shot, save, corner, free_kick, foul, card, substitution, offside, penalty, other
  return {{25, 15}, {10, 5}, {10, 5}, {5, 15}, {5, 15}, {8, 4}, {10, 5}, {5, 10}, {10, 4}, {10, 20}, {5, 5}};
}

void parse_padding(const std::string& spec, std::vector<Padding>& padding) {
  std::stringstream parts(spec);
  for (std::string part; std::getline(parts, part, ',');) {
    if (part.empty()) continue;
    const size_t eq = part.find('='), colon = part.find(':');
    const int label = eq == std::string::npos ? -1 : coarse_index(part.substr(0, eq));
    double pre = 0, post = 0;
    size_t used1 = 0, used2 = 0;
    bool ok = label >= 0 && colon != std::string::npos && colon > eq;
    if (ok) {
      try {
        const std::string a = part.substr(eq + 1, colon - eq - 1), b = part.substr(colon + 1);
        pre = std::stod(a, &used1);
        post = std::stod(b, &used2);
        ok = used1 == a.size() && used2 == b.size() && pre >= 0 && post >= 0 && std::isfinite(pre) && std::isfinite(post);
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) throw Error("--padding: cannot read '" + part + "': expected label=pre_s:post_s with a coarse label and seconds >= 0");
    padding[label] = {pre, post};
  }
}

std::vector<EventUnit> merge_units(const std::vector<TextLine>& lines, const std::vector<Tagged>& tags,
                                   const VideoClock& clock, double max_gap_s) {
  std::vector<EventUnit> units;
  for (size_t i = 0; i < lines.size(); ++i) {
    const double t = clock.line_video_s(lines[i].minute);
    if (!units.empty() && units.back().label == tags[i].label && units.back().period == lines[i].minute.period &&
        std::abs(t - units.back().last_s) <= max_gap_s) {
      auto& u = units.back();
      u.lines.push_back(i);
      u.first_s = std::min(u.first_s, t);
      u.last_s = std::max(u.last_s, t);
      u.confidence = std::max(u.confidence, tags[i].confidence);
      continue;
    }
    EventUnit u;
    u.label = tags[i].label;
    u.lines = {i};
    u.period = lines[i].minute.period;
    u.first_s = u.last_s = t;
    u.confidence = tags[i].confidence;
    units.push_back(u);
  }
  return units;
}

std::vector<Segment> make_segments(const std::vector<EventUnit>& units, const std::vector<TextLine>& lines,
                                   const std::vector<Padding>& padding, bool keep_other) {
  std::vector<Segment> out;
  for (const auto& u : units) {
    if (u.label == kOther && !keep_other) continue;
    Segment s;
    s.label = u.label;
    s.period = u.period;
    s.spot_s = u.first_s;
    s.start_s = u.first_s - padding[u.label].pre_s;
    s.end_s = u.last_s + padding[u.label].post_s;
    s.confidence = u.confidence;
    s.minute = lines[u.lines.front()].minute.text;
    s.text = lines[u.lines.front()].text;
    s.lines = static_cast<int>(u.lines.size());
    out.push_back(s);
  }
  return out;
}

VideoClock feed_clock(const MatchText& feed) {
  VideoClock c;
  for (double w : feed.period_start_wall_s) c.kickoff_s.push_back(w - feed.period_start_wall_s.front());
  return c;
}

double estimate_lag_s(const std::vector<const MatchText*>& matches) {
  std::vector<double> d;
  for (const MatchText* m : matches) {
    if (!m->has_true_times()) continue;
    const VideoClock c = feed_clock(*m);
    for (const auto& l : m->lines)
      if (l.has_true_time && l.true_period == l.minute.period)
        d.push_back(c.line_video_s(l.minute) - c.video_s(l.true_period, l.true_s));
  }
  return d.empty() ? 0.0 : percentile(d, 50);
}

std::string segments_json(const std::vector<Segment>& segments, const nlohmann::ordered_json& inputs) {
  nlohmann::ordered_json j;
  j["tool"] = "dmlkit football";
  j["inputs"] = inputs;
  j["segments"] = nlohmann::ordered_json::array();
  for (const auto& s : segments) {
    nlohmann::ordered_json e;
    e["label"] = coarse_labels()[s.label];
    e["period"] = s.period;
    e["spot_s"] = s.spot_s;
    e["start_s"] = s.start_s;
    e["end_s"] = s.end_s;
    e["confidence"] = s.confidence;
    e["minute"] = s.minute;
    e["text"] = s.text;
    e["lines"] = s.lines;
    e["refined"] = s.refined;
    j["segments"].push_back(e);
  }
  return j.dump(2) + "\n";
}

std::vector<Segment> read_segments_json(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, 0, "", std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("segments") || !j["segments"].is_array())
    throw Error(path, 0, "segments", "expected {\"segments\": [...]}");
  std::vector<Segment> out;
  for (size_t i = 0; i < j["segments"].size(); ++i) {
    const auto& e = j["segments"][i];
    const std::string where = "segments[" + std::to_string(i) + "]";
    auto num = [&](const char* key) {
      if (!e.contains(key) || !e[key].is_number() || !std::isfinite(e[key].get<double>()))
        throw Error(path, 0, where + "." + key, "missing or not a number");
      return e[key].get<double>();
    };
    Segment s;
    s.label = coarse_index(e.value("label", ""));
    if (s.label < 0) throw Error(path, 0, where + ".label", "unknown label '" + e.value("label", "") + "'");
    s.start_s = num("start_s");
    s.end_s = num("end_s");
    if (!(s.end_s > s.start_s)) throw Error(path, 0, where + ".end_s", "must be after start_s");
    s.spot_s = e.contains("spot_s") ? num("spot_s") : s.start_s;
    s.period = e.value("period", 1);
    s.confidence = e.contains("confidence") ? num("confidence") : 1.0;
    s.minute = e.value("minute", "");
    s.text = e.value("text", "");
    s.lines = e.value("lines", 1);
    s.refined = e.value("refined", false);
    out.push_back(s);
  }
  return out;
}

}  // namespace dmlkit::football
