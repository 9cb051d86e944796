// Benchmarks of the football module: tagging 10,000 live-text lines (the two shipped feed matches'
// 277 lines repeated) with each tagger on one core (target < 1 s), and training the ngram-mlp
// tagger with its default settings on both matches (target < 2 min). docs/performance.md.
#include <benchmark/benchmark.h>

#include "core/data_dir.h"
#include "football/ngram_mlp.h"
#include "football/tagger.h"

namespace dmlkit::football {
namespace {

std::vector<MatchText> feeds() {
  return {read_appsync_feed(data_path("football/appsync/so0102sim_match_02.json")),
          read_appsync_feed(data_path("football/appsync/so0102sim_match_03.json"))};
}

std::vector<TextLine> ten_thousand_lines() {
  std::vector<TextLine> out;
  const auto m = feeds();
  while (out.size() < 10000)
    for (const auto& f : m)
      for (const auto& l : f.lines)
        if (out.size() < 10000) out.push_back(l);
  return out;
}

void tag_lines(benchmark::State& state, const char* tagger, KnobValues knobs) {
  const auto lines = ten_thousand_lines();
  const auto t = make_tagger(tagger, {}, knobs);
  for (auto _ : state) benchmark::DoNotOptimize(t->tag(lines));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(lines.size()));
}

void BM_Tag10kLinesKeywords(benchmark::State& state) { tag_lines(state, "keywords", {}); }
void BM_Tag10kLinesNgramMlp(benchmark::State& state) { tag_lines(state, "ngram-mlp", {}); }
void BM_Tag10kLinesNgramMlpHmm(benchmark::State& state) { tag_lines(state, "ngram-mlp", {{"ngram-mlp.hmm", "1"}}); }

void BM_TrainNgramMlpDefault(benchmark::State& state) {
  const auto m = feeds();
  NgramMlpConfig c;
  for (auto _ : state) benchmark::DoNotOptimize(train_ngram_mlp(m, c));
}

BENCHMARK(BM_Tag10kLinesKeywords)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tag10kLinesNgramMlp)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tag10kLinesNgramMlpHmm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrainNgramMlpDefault)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace dmlkit::football

BENCHMARK_MAIN();
