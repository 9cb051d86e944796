// The ngram-mlp tagger's lexicon inputs (ngram-mlp.lexicon): a class with no training line is
// recognised when the keyword lexicon names it, and the option round-trips through the model file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/data_dir.h"
#include "core/knobs.h"
#include "football/labels.h"
#include "football/lines.h"
#include "football/ngram_mlp.h"
#include "football/tagger.h"

using namespace dmlkit::football;

namespace {

// Match 03 of the shipped feed has no penalty line (its three "penalty" words are in throw-in lines
// labelled other).
std::vector<MatchText> match_03() { return {read_appsync_feed(dmlkit::data_path("football/appsync/so0102sim_match_03.json"))}; }

std::vector<TextLine> penalty_lines() {
  std::vector<TextLine> out;
  for (const char* t : {"Borussia Monchengladbach have been awarded a penalty...", "Penalty to Rovers! Lund brings down Novak.",
                        "The referee points to the spot and gives a penalty."}) {
    TextLine l;
    l.text = t;
    out.push_back(l);
  }
  return out;
}

int argmax(const std::vector<double>& p) {
  int best = 0;
  for (int k = 1; k < static_cast<int>(p.size()); ++k)
    if (p[k] > p[best]) best = k;
  return best;
}

}  // namespace

TEST(FootballNgramMlp, TrainingDataHasNoPenaltyLine) {
  for (const auto& l : match_03()[0].lines) EXPECT_NE(l.label, coarse_index("penalty")) << l.text;
}

TEST(FootballNgramMlp, LexiconInputsTagAClassNeverSeenInTheTrainingLines) {
  NgramMlpConfig c;
  c.features.lexicon = "rule";
  const NgramMlpModel m = train_ngram_mlp(match_03(), c);
  EXPECT_EQ(m.shape.inputs, c.features.dim + coarse_count());
  for (const auto& p : ngram_mlp_probabilities(m, penalty_lines())) EXPECT_EQ(argmax(p), coarse_index("penalty"));
  // The same lexicon does not override what the lines taught: a throw-in near the penalty box
  // stays other, a corner stays corner.
  std::vector<TextLine> others(2);
  others[0].text = "Throw-in for RB Leipzig close to the penalty box.";
  others[1].text = "RB Leipzig have been awarded a corner.";
  const auto p = ngram_mlp_probabilities(m, others);
  EXPECT_EQ(argmax(p[0]), kOther);
  EXPECT_EQ(argmax(p[1]), coarse_index("corner"));
}

TEST(FootballNgramMlp, LexiconSettingRoundTripsThroughTheModelFile) {
  NgramMlpConfig c;
  c.epochs = 2;
  c.features.lexicon = "hits";
  c.features.lexicon_weight = 0.5;
  const NgramMlpModel m = train_ngram_mlp(match_03(), c);
  const auto path = (std::filesystem::temp_directory_path() / "dmlkit-football-lexicon-model.json").string();
  save_ngram_mlp(path, m);
  const NgramMlpModel back = load_ngram_mlp(path);
  EXPECT_EQ(back.features.lexicon, "hits");
  EXPECT_DOUBLE_EQ(back.features.lexicon_weight, 0.5);
  const auto a = ngram_mlp_probabilities(m, penalty_lines()), b = ngram_mlp_probabilities(back, penalty_lines());
  ASSERT_EQ(a.size(), b.size());
  for (size_t t = 0; t < a.size(); ++t)
    for (size_t k = 0; k < a[t].size(); ++k) EXPECT_NEAR(a[t][k], b[t][k], 1e-5);
  std::filesystem::remove(path);
}

TEST(FootballNgramMlp, AModelFileWithoutTheLexiconKeysLoadsAsNoLexicon) {
  NgramMlpConfig c;
  c.epochs = 1;
  c.features.lexicon = "none";
  const auto path = (std::filesystem::temp_directory_path() / "dmlkit-football-old-model.json").string();
  save_ngram_mlp(path, train_ngram_mlp(match_03(), c));
  nlohmann::json j;
  std::ifstream(path) >> j;
  j["meta"].erase("features.lexicon");
  j["meta"].erase("features.lexicon_weight");
  std::ofstream(path) << j.dump();
  const NgramMlpModel back = load_ngram_mlp(path);
  EXPECT_EQ(back.features.lexicon, "none");
  EXPECT_EQ(back.shape.inputs, back.features.dim);
  std::filesystem::remove(path);
}

TEST(FootballNgramMlp, KeywordHitsIgnoreThePriorityOrder) {
  const auto hits = keyword_hits("Throw-in for RB Leipzig close to the penalty box.");
  EXPECT_TRUE(hits[kOther]);
  EXPECT_TRUE(hits[coarse_index("penalty")]);
  EXPECT_FALSE(hits[coarse_index("goal")]);
  EXPECT_EQ(keyword_label("Throw-in for RB Leipzig close to the penalty box."), kOther);
}
