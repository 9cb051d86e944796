// The `ngram-mlp` tagger: hashed character/word n-gram features (features.h) -> a one-hidden-layer
// MLP -> softmax over the coarse labels, trained with cross-entropy and Adam on libtorch through
// learn's plugin (learn/mlp_trainer.h), run at tagging time by learn/mlp.h's plain C++ forward pass;
// optionally smoothed over the line sequence by an HMM (hmm.h). With ngram-mlp.lexicon (default
// rule) the keyword rules' verdict is 11 extra inputs: a lexicon prior for classes with few or no
// training lines, tied to its labels by the label-name lines [A] (docs/football.md). It is a fastText-style bag of
// n-grams (Joulin et al., "Bag of Tricks for Efficient Text Classification", 2017) with a hidden
// ReLU layer instead of fastText's linear embedding average, not a CNN or BiGRU: with 277 training
// lines a small model is what the data supports. No pretrained weights: it learns from the shipped
// feed only. [A] every size below is our choice (knobs).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "football/features.h"
#include "football/hmm.h"
#include "football/lines.h"
#include "learn/mlp.h"

namespace dmlkit::football {

struct NgramMlpConfig {
  FeatureConfig features;
  int hidden = 32;
  int epochs = 30;
  int batch = 16;
  double learning_rate = 0.01;
  bool balance = true;  // draw each epoch's lines class-uniformly (rare classes as often as common)
  // Add one training line per label name of the label sets (the coarse names and the SoccerNet-v2
  // class names mapped to coarse, e.g. "yellow card" -> card): supervision from the label names
  // alone, so a class with no or one training line (penalty, foul) is not unknown to the model.
  bool label_names = true;
  uint64_t seed = 1;
};

struct NgramMlpModel {
  FeatureConfig features;
  learn::MlpShape shape;
  std::vector<float> parameters;
  LabelHmm hmm;
  std::map<std::string, std::string> meta;  // how it was made: command, seed, training files, ...
  int training_lines = 0;
  double final_loss = 0;
};

// Trains on every labelled line of `matches` (deterministic for config.seed). Throws Error if there
// is no labelled line.
NgramMlpModel train_ngram_mlp(const std::vector<MatchText>& matches, const NgramMlpConfig& config);

void save_ngram_mlp(const std::string& path, const NgramMlpModel& model);
NgramMlpModel load_ngram_mlp(const std::string& path);

// Inputs of the network: the hash buckets plus one per coarse label with a lexicon.
int model_inputs(const FeatureConfig& features);

// Class probabilities of each line (rows sum to 1).
std::vector<std::vector<double>> ngram_mlp_probabilities(const NgramMlpModel& model,
                                                         const std::vector<TextLine>& lines);

}  // namespace dmlkit::football

namespace dmlkit {
class Knobs;
}
namespace dmlkit::football {
// The training settings the ngram-mlp.* knobs give (declared in ngram_mlp_entry()).
NgramMlpConfig ngram_mlp_config(const Knobs& knobs, uint64_t seed);
}  // namespace dmlkit::football

namespace dmlkit::football {
class Tagger;
// A tagger of a model in memory (ngram-mlp.hmm / hmm_weight read from knobs).
std::unique_ptr<Tagger> make_ngram_mlp_tagger(NgramMlpModel model, const Knobs& knobs);
}  // namespace dmlkit::football
