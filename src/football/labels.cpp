// Label sets and their mappings (labels.h).
#include "football/labels.h"

#include <algorithm>
#include <cctype>

namespace dmlkit::football {

const std::vector<std::string>& coarse_labels() {
  static const std::vector<std::string> v{"goal", "shot", "save", "corner", "free_kick", "foul",
                                          "card", "substitution", "offside", "penalty", "other"};
  return v;
}

int coarse_count() { return static_cast<int>(coarse_labels().size()); }

int coarse_index(std::string_view label) {
  std::string n;
  for (char c : label) {
    if (c == ' ' || c == '-') c = '_';
    n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!n.empty() && n.back() == '_') n.pop_back();
  const auto& v = coarse_labels();
  const auto it = std::find(v.begin(), v.end(), n);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// SoccerNet's EVENT_DICTIONARY_V2 order (SoccerNet/Evaluation/utils.py).
const std::vector<std::string>& soccernet_v2_labels() {
  static const std::vector<std::string> v{"Penalty",          "Kick-off",         "Goal",       "Substitution",
                                          "Offside",          "Shots on target",  "Shots off target",
                                          "Clearance",        "Ball out of play", "Throw-in",   "Foul",
                                          "Indirect free-kick", "Direct free-kick", "Corner",   "Yellow card",
                                          "Red card",         "Yellow->red card"};
  return v;
}

namespace {
struct SnMap {
  const char* soccernet;
  const char* coarse;
};
// SoccerNet-v2 -> coarse. SoccerNet has no "save": a saved shot is "Shots on target" (-> shot).
constexpr SnMap kSoccerNet[] = {
    {"Penalty", "penalty"},      {"Kick-off", "other"},          {"Goal", "goal"},
    {"Substitution", "substitution"}, {"Offside", "offside"},    {"Shots on target", "shot"},
    {"Shots off target", "shot"}, {"Clearance", "other"},        {"Ball out of play", "other"},
    {"Throw-in", "other"},       {"Foul", "foul"},               {"Indirect free-kick", "free_kick"},
    {"Direct free-kick", "free_kick"}, {"Corner", "corner"},     {"Yellow card", "card"},
    {"Red card", "card"},        {"Yellow->red card", "card"}};
// coarse -> the one SoccerNet-v2 class written for it (a choice where several map back).
constexpr SnMap kCoarseToSn[] = {
    {"Goal", "goal"},        {"Shots on target", "shot"},          {"Shots on target", "save"},
    {"Corner", "corner"},    {"Indirect free-kick", "free_kick"},  {"Foul", "foul"},
    {"Yellow card", "card"}, {"Substitution", "substitution"},     {"Offside", "offside"},
    {"Penalty", "penalty"}};
}  // namespace

std::optional<std::string> soccernet_to_coarse(std::string_view soccernet) {
  for (const auto& m : kSoccerNet)
    if (soccernet == m.soccernet) return std::string(m.coarse);
  return std::nullopt;
}

std::string coarse_to_soccernet(std::string_view coarse) {
  for (const auto& m : kCoarseToSn)
    if (coarse == m.coarse) return m.soccernet;
  return "";
}

const std::vector<FeedLabel>& feed_labels() {
  static const std::vector<FeedLabel> v{
      {"score_change", "goal", "Goal", "both lines of a goal (the goal, then the assist) are goal lines"},
      {"shot_on_target", "shot", "Shots on target", "the feed's text describes the shot (and often the save); its shot_saved records carry no text"},
      {"shot_off_target", "shot", "Shots off target", "includes hitting the post"},
      {"shot_saved", "save", "Shots on target", "no text in the feed; from the event stream only"},
      {"corner_kick", "corner", "Corner", ""},
      {"free_kick", "free_kick", "", "SoccerNet splits direct/indirect; the feed does not say which"},
      {"penalty_awarded", "penalty", "Penalty", ""},
      {"yellow_card", "card", "Yellow card", ""},
      {"red_card", "card", "Red card", "not in the shipped matches"},
      {"yellow_red_card", "card", "Yellow->red card", "not in the shipped matches"},
      {"substitution", "substitution", "Substitution", ""},
      {"offside", "offside", "Offside", ""},
      {"throw_in", "other", "Throw-in", "not a highlight"},
      {"goal_kick", "other", "", "not a highlight; SoccerNet has no goal-kick class"},
      {"injury", "other", "", ""},
      {"injury_return", "other", "", ""},
      {"match_started", "other", "Kick-off", ""},
  };
  return v;
}

std::string feed_to_coarse(std::string_view feed) {
  for (const auto& f : feed_labels())
    if (f.feed == feed) return f.coarse;
  return "other";
}

}  // namespace dmlkit::football
