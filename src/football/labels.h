// The label sets of football/ and the mappings between them (docs/football.md, "Label sets"):
// - coarse: goal, shot, save, corner, free_kick, foul, card, substitution, offside, penalty, other
//   (what taggers predict and what the evaluation scores; "free kick" and "free-kick" are read as
//   free_kick);
// - SoccerNet-v2's 17 action-spotting classes, in SoccerNet's own order (its EVENT_DICTIONARY_V2);
// - the appsync (Sportradar-style) feed's event types.
// Mappings are many-to-one into coarse; the reverse (coarse -> SoccerNet, to write prediction
// files) picks one representative class and says so.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dmlkit::football {

// The coarse labels in a fixed order; a label's index is its class id in taggers and metrics.
const std::vector<std::string>& coarse_labels();
int coarse_count();
// Index of a coarse label (accepts "free kick", "Free-Kick", ...), or -1.
int coarse_index(std::string_view label);
inline constexpr int kOther = 10;  // index of "other"

const std::vector<std::string>& soccernet_v2_labels();
// SoccerNet-v2 class -> coarse label, or nullopt for a name that is not a SoccerNet-v2 class.
std::optional<std::string> soccernet_to_coarse(std::string_view soccernet);
// Coarse -> the one SoccerNet-v2 class written for it when predictions are saved in SoccerNet's
// format ("" for other). Lossy where several classes map to one coarse label: shot and save ->
// "Shots on target", free_kick -> "Indirect free-kick", card -> "Yellow card" (labels.cpp).
std::string coarse_to_soccernet(std::string_view coarse);

// The feed's event types that carry text or matter for timing, with their coarse label.
struct FeedLabel {
  std::string feed;       // e.g. "score_change"
  std::string coarse;     // e.g. "goal"
  std::string soccernet;  // e.g. "Goal", "" when SoccerNet-v2 has no such class
  std::string note;       // why, when the mapping is a choice
};
const std::vector<FeedLabel>& feed_labels();
// Coarse label of a feed type; unknown types map to "other".
std::string feed_to_coarse(std::string_view feed);

}  // namespace dmlkit::football
