// The tagger registry (tagger.h).
#include "football/tagger.h"

namespace dmlkit::football {

const Registry<TaggerEntry>& tagger_registry() {
  static const Registry<TaggerEntry> r({"tagger", "", "--tagger: ", "--tagger-param"},
                                       {keywords_entry(), ngram_mlp_entry()});
  return r;
}

std::unique_ptr<Tagger> make_tagger(const std::string& name, const TaggerOptions& options, const KnobValues& knobs) {
  const auto& reg = tagger_registry();
  reg.check_knobs({name}, knobs);
  const TaggerEntry& e = reg.get(name);
  return e.make(options, Knobs(knobs, e.knobs, "--tagger-param"));
}

}  // namespace dmlkit::football
