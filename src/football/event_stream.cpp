// Readers of event streams (event_stream.h).
#include "football/event_stream.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"
#include "football/labels.h"

namespace dmlkit::football {
namespace {

nlohmann::json parse_json_file(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(path, 0, "", "no such file");
  try {
    return nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, 0, "", std::string("invalid JSON: ") + e.what());
  }
}

// The value of attribute `name` in the tag text `tag` ("<Event A=\"1\" B=\"2\">"), or "".
std::string attribute(std::string_view tag, std::string_view name) {
  std::string key(1, ' ');
  key.append(name).append("=\"");
  const size_t at = tag.find(key);
  if (at == std::string_view::npos) return "";
  const size_t from = at + key.size();
  const size_t to = tag.find('"', from);
  return to == std::string_view::npos ? "" : std::string(tag.substr(from, to - from));
}

int idsse_period(const std::string& section) {
  if (section == "firstHalf") return 1;
  if (section == "secondHalf") return 2;
  if (section == "firstHalfExtra") return 3;
  if (section == "secondHalfExtra") return 4;
  return 0;
}

// Coarse label of an IDSSE event from the element names inside it (first = its type).
std::string idsse_label(const std::vector<std::string>& names) {
  auto has = [&](const char* n) {
    for (const auto& x : names)
      if (x == n) return true;
    return false;
  };
  const std::string& type = names.empty() ? std::string() : names.front();
  if (type == "ShotAtGoal") return has("SuccessfulShot") ? "goal" : has("SavedShot") ? "save" : "shot";
  if (type == "CornerKick") return "corner";
  if (type == "FreeKick") return has("ShotAtGoal") ? (has("SuccessfulShot") ? "goal" : "shot") : "free_kick";
  if (type == "Penalty") return "penalty";
  if (type == "Foul") return "foul";
  if (type == "Caution" || type == "SendingOff") return "card";
  if (type == "Substitution") return "substitution";
  if (type == "Offside") return "offside";
  return "other";
}

}  // namespace

EventStream read_idsse_xml(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(path, 0, "", "no such file");
  const std::string text = read_text_file(path);
  if (text.find("<Event") == std::string::npos) throw Error(path, 0, "", "no <Event> element: not an IDSSE/Sportec event file");
  struct Raw {
    double wall;
    std::vector<std::string> names;
    std::string id, section;
  };
  std::vector<Raw> raw;
  std::map<int, double> kickoff;
  for (size_t at = text.find("<Event "); at != std::string::npos; at = text.find("<Event ", at + 1)) {
    const size_t tag_end = text.find('>', at);
    if (tag_end == std::string::npos) break;
    const std::string_view tag(text.data() + at, tag_end - at);
    size_t close = text.find("</Event>", tag_end);
    if (text[tag_end - 1] == '/') close = tag_end;
    if (close == std::string::npos) throw Error(path, 0, "Event", "unterminated <Event>");
    Raw r;
    r.id = attribute(tag, "EventId");
    if (!parse_iso_time(attribute(tag, "EventTime"), r.wall))
      throw Error(path, 0, "EventTime", "event " + r.id + ": not an ISO-8601 time");
    for (size_t p = text.find('<', tag_end); p != std::string::npos && p < close; p = text.find('<', p + 1)) {
      if (text[p + 1] == '/') continue;
      size_t e = p + 1;
      while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
      r.names.push_back(text.substr(p + 1, e - p - 1));
      if (r.names.size() == 1) r.section = attribute(std::string_view(text.data() + p, text.find('>', p) - p), "GameSection");
    }
    if (r.names.empty() || r.names.front() == "Delete") continue;
    if (r.names.front() == "KickOff" && idsse_period(r.section) > 0 && !kickoff.count(idsse_period(r.section)))
      kickoff[idsse_period(r.section)] = r.wall;
    raw.push_back(std::move(r));
    at = close;
  }
  if (!kickoff.count(1)) throw Error(path, 0, "KickOff", "no KickOff of the first half: cannot place events in periods");
  EventStream s{path, "idsse", {}};
  for (const auto& r : raw) {
    int period = 0;
    for (const auto& [p, w] : kickoff)
      if (r.wall >= w) period = p;
    if (period == 0) continue;  // before the kick-off
    TimedEvent ev;
    ev.period = period;
    ev.t_s = r.wall - kickoff[period];
    ev.source_label = r.names.front();
    ev.label = coarse_index(idsse_label(r.names));
    ev.id = r.id;
    s.events.push_back(ev);
  }
  return s;
}

EventStream read_wyscout_json(const std::string& path) {
  const nlohmann::json j = parse_json_file(path);
  if (!j.is_object() || !j.contains("events") || !j["events"].is_array())
    throw Error(path, 0, "events", "expected Wyscout's {\"events\": [...]}");
  EventStream s{path, "wyscout", {}};
  static const std::map<std::string, int> kPeriod{{"1H", 1}, {"2H", 2}, {"E1", 3}, {"E2", 4}};
  size_t i = 0;
  for (const auto& e : j["events"]) {
    ++i;
    const auto it = kPeriod.find(e.value("matchPeriod", ""));
    if (it == kPeriod.end()) continue;  // the shoot-out (P) has no video time here
    if (!e.contains("eventSec") || !e["eventSec"].is_number())
      throw Error(path, 0, "events[" + std::to_string(i - 1).append("].eventSec"), "missing or not a number");
    std::vector<int> tags;
    if (e.contains("tags"))
      for (const auto& t : e["tags"]) tags.push_back(t.value("id", 0));
    auto tagged = [&](int id) { return std::find(tags.begin(), tags.end(), id) != tags.end(); };
    const std::string name = e.value("eventName", ""), sub = e.value("subEventName", "");
    std::string label = "other";
    if (tagged(102)) label = "goal";  // own goal: the event of the player who put it in his own net
    else if (name == "Shot" || sub == "Free kick shot" || sub == "Penalty")
      label = tagged(101) ? "goal" : (sub == "Penalty" ? "penalty" : "shot");
    else if (name == "Save attempt") label = "save";
    else if (sub == "Corner") label = "corner";
    else if (sub == "Free Kick" || sub == "Free kick cross") label = "free_kick";
    else if (name == "Foul") label = "foul";
    else if (name == "Offside") label = "offside";
    TimedEvent ev;
    ev.period = it->second;
    ev.t_s = e["eventSec"].get<double>();
    ev.source_label = sub.empty() ? name : sub;
    ev.label = coarse_index(label);
    ev.id = e.contains("id") ? e["id"].dump() : std::to_string(i - 1);
    s.events.push_back(ev);
    if (tagged(1701) || tagged(1702) || tagged(1703)) {  // a card given at that moment
      TimedEvent card = ev;
      card.label = coarse_index("card");
      card.source_label = tagged(1702) ? "yellow card" : "red card";
      s.events.push_back(card);
    }
  }
  return s;
}

EventStream read_soccernet_json(const std::string& path) {
  const nlohmann::json j = parse_json_file(path);
  const bool preds = j.is_object() && j.contains("predictions");
  if (!j.is_object() || (!preds && !j.contains("annotations")))
    throw Error(path, 0, "", "expected SoccerNet's {\"annotations\": [...]} or {\"predictions\": [...]}");
  EventStream s{path, preds ? "soccernet-predictions" : "soccernet-labels", {}};
  const auto& list = j[preds ? "predictions" : "annotations"];
  size_t i = 0;
  for (const auto& a : list) {
    std::string where = preds ? "predictions[" : "annotations[";
    where.append(std::to_string(i++)).append("]");
    auto number = [&](const char* key, double& out) {
      if (!a.contains(key)) return false;
      const auto& v = a[key];
      if (v.is_number()) {
        out = v.get<double>();
        return true;
      }
      if (v.is_string()) {
        try {
          size_t used = 0;
          out = std::stod(v.get<std::string>(), &used);
          return used == v.get<std::string>().size();
        } catch (const std::exception&) {
          return false;
        }
      }
      return false;
    };
    const std::string game_time = a.value("gameTime", "");
    double half = 0, position_ms = -1, confidence = 1;
    if (!number("half", half)) {
      if (game_time.empty() || (game_time[0] != '1' && game_time[0] != '2'))
        throw Error(path, 0, where + ".gameTime", "expected \"1 - mm:ss\" or \"2 - mm:ss\"");
      half = game_time[0] - '0';
    }
    if (!number("position", position_ms)) {
      int mm = 0, ss = 0;
      if (game_time.size() < 5 || std::sscanf(game_time.c_str() + game_time.size() - 5, "%2d:%2d", &mm, &ss) != 2)
        throw Error(path, 0, where + ".position", "no position (ms) and no readable gameTime");
      position_ms = 1000.0 * (60 * mm + ss);
    }
    if (preds && !number("confidence", confidence))
      throw Error(path, 0, where + ".confidence", "missing or not a number");
    if (half < 1 || half > 2 || position_ms < 0)
      throw Error(path, 0, where, "half must be 1 or 2 and position >= 0");
    TimedEvent ev;
    ev.period = static_cast<int>(half);
    ev.t_s = position_ms / 1000.0;
    ev.source_label = a.value("label", "");
    const auto coarse = soccernet_to_coarse(ev.source_label);
    ev.label = coarse ? coarse_index(*coarse) : coarse_index(ev.source_label);
    if (ev.label < 0) ev.label = kOther;
    ev.confidence = confidence;
    ev.visible = a.value("visibility", "visible") != "not shown";
    s.events.push_back(ev);
  }
  return s;
}

EventStream read_event_stream(const std::string& path, const std::string& format) {
  std::string f = format;
  if (f == "auto") {
    if (std::filesystem::path(path).extension() == ".xml") {
      f = "idsse";
    } else {
      const nlohmann::json j = parse_json_file(path);
      if (j.is_array()) f = "feed";
      else if (j.is_object() && (j.contains("annotations") || j.contains("predictions"))) f = "soccernet";
      else if (j.is_object() && j.contains("events")) f = "wyscout";
      else throw Error(path, 0, "", "cannot tell the event format (give --events-format)");
    }
  }
  if (f == "idsse") return read_idsse_xml(path);
  if (f == "wyscout") return read_wyscout_json(path);
  if (f == "soccernet") return read_soccernet_json(path);
  if (f == "feed") {
    MatchText m = read_appsync_feed(path);
    return {path, "feed", std::move(m.events)};
  }
  throw Error("unknown event format '" + format + "' (known: auto, idsse, wyscout, soccernet, feed)");
}

std::string soccernet_predictions_json(const std::vector<TimedEvent>& events, const std::string& game) {
  nlohmann::ordered_json j;
  j["UrlLocal"] = game;
  j["predictions"] = nlohmann::ordered_json::array();
  for (const auto& e : events) {
    if (e.label < 0 || e.label == kOther || e.period < 1 || e.period > 2) continue;
    const std::string sn = coarse_to_soccernet(coarse_labels()[e.label]);
    if (sn.empty()) continue;
    const long ms = std::lround(std::max(0.0, e.t_s) * 1000);
    char gt[32];
    std::snprintf(gt, sizeof gt, "%d - %02ld:%02ld", e.period, ms / 60000, (ms / 1000) % 60);
    nlohmann::ordered_json p;
    p["gameTime"] = gt;
    p["label"] = sn;
    p["position"] = std::to_string(ms);
    p["half"] = std::to_string(e.period);
    p["confidence"] = std::to_string(e.confidence);
    j["predictions"].push_back(p);
  }
  return j.dump(2) + "\n";
}

}  // namespace dmlkit::football
