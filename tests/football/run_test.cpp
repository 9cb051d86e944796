// The run entries of `dmlkit football` (football/run.h): check() refuses bad fields naming them,
// run() returns Results, tables and segments in memory; and the tagger registry's conformance:
// every registered tagger tags a tiny match (one tag per line, a label and a confidence in range),
// its knobs' defaults parse and a bad value is refused naming the knob.
#include "football/run.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/data_dir.h"
#include "core/error.h"
#include "football/labels.h"
#include "football/tagger.h"

namespace dmlkit::football {
namespace {

void expect_error(const std::function<void()>& f, const std::string& field) {
  try {
    f();
    ADD_FAILURE() << "no error for " << field;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(FootballRunSpec, CheckNamesTheField) {
  EvaluateSpec e;
  e.tagger.tagger = "keywords";
  EXPECT_NO_THROW(check(e));
  e.tagger.model = "m.json";
  expect_error([&] { check(e); }, "--model");
  e = EvaluateSpec{};
  e.lomo = true;
  e.tagger.model = "m.json";
  expect_error([&] { check(e); }, "--model");
  e = EvaluateSpec{};
  e.tagger.tagger = "nope";
  expect_error([&] { check(e); }, "nope");
  e = EvaluateSpec{};
  e.tagger.params = {"ngram-mlp.typo=1"};
  expect_error([&] { check(e); }, "ngram-mlp.typo");
  e = EvaluateSpec{};
  e.max_gap_s = -1;
  expect_error([&] { check(e); }, "--max-gap-s");
  SegmentsSpec s;
  expect_error([&] { check(s); }, "--lines");
  s.lines = "x.csv";
  s.kickoffs = {10, 5};
  expect_error([&] { check(s); }, "--kickoffs");
  s.kickoffs = {};
  s.min_confidence = 2;
  expect_error([&] { check(s); }, "--min-confidence");
  SpottingSpec p;
  p.labels = {"a.json"};
  expect_error([&] { check(p); }, "--predictions");
  p.predictions = {"b.json"};
  p.dictionary = "nope";
  expect_error([&] { check(p); }, "--dictionary");
  TrainSpec t;
  t.params = {"keywords.x=1"};
  expect_error([&] { check(t); }, "keywords.x");
  CutSpec c;
  c.video = "v.mp4";
  c.segments = "/no/such/segments.json";
  expect_error([&] { check(c); }, "no such file");
}

TEST(FootballRunSpec, EvaluateAndSegmentsRunInMemory) {
  EvaluateSpec e;
  e.tagger.tagger = "keywords";
  const EvaluateOutput ev = run(e);
  ASSERT_FALSE(ev.results.records().empty());
  EXPECT_EQ(ev.results.records().front().name, "keywords");
  EXPECT_EQ(ev.results.inputs()["lines"].size(), 2u);
  EXPECT_NE(ev.summary_text("table").find("tagger keywords, rules (nothing trained)"), std::string::npos);
  EXPECT_EQ(ev.tables().size(), 6u);  // records, summary, lines, per_class, confusion, segments (timed feeds)
  SegmentsSpec s;
  s.lines = data_path("football/appsync/so0102sim_match_02.json");
  s.tagger.tagger = "keywords";
  const SegmentsOutput seg = run(s);
  EXPECT_FALSE(seg.segments.empty());
  EXPECT_EQ(seg.spots.size(), seg.segments.size());
  EXPECT_EQ(seg.table.rows().size(), seg.segments.size());
}

TEST(TaggerConformance, EveryRegisteredTaggerTagsEveryLine) {
  const MatchText m = read_match_text(data_path("football/appsync/so0102sim_match_02.json"));
  ASSERT_FALSE(tagger_registry().entries().empty());
  for (const auto& entry : tagger_registry().entries()) {
    SCOPED_TRACE(entry.name);
    EXPECT_FALSE(entry.summary.empty());
    KnobValues defaults;
    for (const auto& k : entry.knobs) {
      EXPECT_EQ(k.name.rfind(entry.name + ".", 0), 0u) << k.name;
      EXPECT_NO_THROW(k.check(k.default_value, k.name)) << k.name;
      defaults[k.name] = k.default_value;
    }
    for (const KnobValues& knobs : {KnobValues{}, defaults}) {
      const auto tags = make_tagger(entry.name, {}, knobs)->tag(m.lines);
      ASSERT_EQ(tags.size(), m.lines.size());
      for (const auto& t : tags) {
        EXPECT_TRUE(t.label >= 0 && t.label < coarse_count());
        EXPECT_TRUE(t.confidence >= 0 && t.confidence <= 1);
      }
    }
    for (const auto& k : entry.knobs) {
      if (k.type != KnobType::Int && k.type != KnobType::Double && k.type != KnobType::Enum) continue;
      expect_error([&] { make_tagger(entry.name, {}, {{k.name, "not-a-value"}}); }, k.name);
    }
  }
}

}  // namespace
}  // namespace dmlkit::football
