// Hashed bag-of-n-grams features of a live-text line (fastText-style, Joulin et al. 2017, without
// its embedding layer): lower-cased word unigrams and bigrams and the character 3..5-grams of each
// word with boundary marks ("<save>" gives "<sa", "sav", ..., "ve>"), digits folded to '0', each
// hashed (FNV-1a) into `dim` buckets; counts are L2-normalised. Character n-grams let the learned
// tagger see "booked"/"booking" or "saved"/"saves" as related without a vocabulary.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dmlkit::football {

struct FeatureConfig {
  int dim = 4096;        // hash buckets
  int char_min = 3;      // character n-gram lengths
  int char_max = 5;
  bool bigrams = true;
  // Lexicon inputs appended after the `dim` hashed buckets (used by ngram_mlp.cpp, not by
  // line_features): "none"; "rule": one input per coarse label, 1 for the label the `keywords`
  // rules give the line (one-hot); "hits": one input per coarse label, 1 when any of that label's
  // keyword rules matches the line (multi-hot). Each scaled by lexicon_weight.
  std::string lexicon = "rule";  // the ngram-mlp.lexicon knob's default
  double lexicon_weight = 1.0;
  bool operator==(const FeatureConfig&) const = default;
};

// Sparse features: (bucket, value) sorted by bucket, buckets unique, L2 norm 1 (empty for a line
// without letters or digits).
std::vector<std::pair<int, float>> line_features(std::string_view text, const FeatureConfig& config);
// Lower-cased words (letters, digits folded to '0', bytes >= 0x80 kept) of a line.
std::vector<std::string> words_of(std::string_view text);

}  // namespace dmlkit::football
