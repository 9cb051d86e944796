// The `keywords` tagger: the rule baseline. Not from a paper: generic football vocabulary, checked
// in a fixed priority order, first match wins (a line often names words of several classes):
//   1. restarts that are not highlights: "goal kick", "goal-kick", "throw-in", "throw in" -> other
//   2. "yellow card", "red card", "booked", "booking", "sent off", "caution", "yellow" -> card
//   3. "substitut", "replaces", "replacing", "comes on", "makes way" -> substitution
//   4. "offside" -> offside
//   5. "goal!", "scores", "scored", "nets", "back of the net", "equalis"/"equaliz" -> goal
//   6. "penalty", "spot kick", "spot-kick" -> penalty
//   7. "save", "keeper", "goalkeeper" -> shot (a line about a save describes the attempt; the coarse
//      label save is for goalkeeper events of event streams, docs/football.md)
//   8. "corner" -> corner
//   9. "free kick", "free-kick" -> free_kick
//  10. "foul" -> foul
//  11. "shot", "shoots", "header", "heads", "strike", "effort", "wide", "over the bar", "post" -> shot
//  12. "goal" anywhere -> goal
//  otherwise other. Matching is on the lower-cased line, by substring. The list was written from
// general commentary vocabulary, not fitted to the shipped feed (docs/football.md compares it).
#include <algorithm>
#include <cctype>
#include <string>

#include "football/labels.h"
#include "football/tagger.h"

namespace dmlkit::football {
namespace {

struct Rule {
  const char* label;
  std::vector<const char*> needles;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r{
      {"other", {"goal kick", "goal-kick", "throw-in", "throw in"}},
      {"card", {"yellow card", "red card", "booked", "booking", "sent off", "caution", "yellow"}},
      {"substitution", {"substitut", "replaces", "replacing", "comes on", "makes way"}},
      {"offside", {"offside"}},
      {"goal", {"goal!", "scores", "scored", "nets", "back of the net", "equalis", "equaliz"}},
      {"penalty", {"penalty", "spot kick", "spot-kick"}},
      {"shot", {"save", "keeper"}},
      {"corner", {"corner"}},
      {"free_kick", {"free kick", "free-kick"}},
      {"foul", {"foul"}},
      {"shot", {"shot", "shoots", "header", "heads", "strike", "effort", "wide", "over the bar", "post"}},
      {"goal", {"goal"}},
  };
  return r;
}

class KeywordsTagger final : public Tagger {
 public:
  std::vector<Tagged> tag(const std::vector<TextLine>& lines) const override {
    std::vector<Tagged> out(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) out[i].label = keyword_label(lines[i].text);
    return out;
  }
};

}  // namespace

int keyword_label(std::string_view text) {
  std::string low(text);
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& rule : rules())
    for (const char* n : rule.needles)
      if (low.find(n) != std::string::npos) return coarse_index(rule.label);
  return kOther;
}

std::vector<bool> keyword_hits(std::string_view text) {
  std::string low(text);
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<bool> hits(coarse_count(), false);
  for (const auto& rule : rules())
    for (const char* n : rule.needles)
      if (low.find(n) != std::string::npos) hits[coarse_index(rule.label)] = true;
  return hits;
}

TaggerEntry keywords_entry() {
  return {"keywords", "keyword rules in a fixed priority order (the baseline; keywords.cpp lists them)",
          [](const TaggerOptions&, const Knobs&) -> std::unique_ptr<Tagger> { return std::make_unique<KeywordsTagger>(); },
          {},
          {.trainable = false, .default_model = ""}};
}

}  // namespace dmlkit::football
