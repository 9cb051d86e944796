// Taggers: each live-text line of a match -> a coarse label (labels.h) and a confidence. The family
// is one Registry (core/registry.h); `dmlkit football taggers -v` lists it with its knobs
// (--tagger-param key=value). A tagger sees the whole match's lines in order, so one that smooths
// over the sequence (ngram-mlp with ngram-mlp.hmm=1) can.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/knobs.h"
#include "core/registry.h"
#include "football/labels.h"
#include "football/lines.h"

namespace dmlkit::football {

struct Tagged {
  int label = kOther;
  double confidence = 1;  // the tagger's probability of `label` (1 for rules)
};

class Tagger {
 public:
  virtual ~Tagger() = default;
  virtual std::vector<Tagged> tag(const std::vector<TextLine>& lines) const = 0;
};

struct TaggerOptions {
  std::string model_path;  // trained taggers: the model file ("" = the shipped default)
};

struct TaggerTraits {
  bool trainable = false;
  std::string default_model;  // relative to the data folder, e.g. football/models/ngram-mlp.json
};

using TaggerFactory = std::function<std::unique_ptr<Tagger>(const TaggerOptions&, const Knobs&)>;
using TaggerEntry = RegistryEntry<TaggerFactory, TaggerTraits>;

const Registry<TaggerEntry>& tagger_registry();
// The tagger used when --tagger is omitted: the shipped trained model.
inline constexpr const char* kDefaultTagger = "ngram-mlp";

// Builds a tagger (unknown name or bad knob -> Error).
std::unique_ptr<Tagger> make_tagger(const std::string& name, const TaggerOptions& options, const KnobValues& knobs);

// Factories (one file each).
TaggerEntry keywords_entry();
TaggerEntry ngram_mlp_entry();

// The keyword rules alone (keywords.cpp), for one line.
int keyword_label(std::string_view text);
// For each coarse label, whether any of its keyword rules matches the line (ignoring the priority
// order): the lexicon's per-class hits, an input of ngram-mlp with ngram-mlp.lexicon=hits.
std::vector<bool> keyword_hits(std::string_view text);

}  // namespace dmlkit::football
