// The evaluation pipeline (evaluate.h).
#include "football/evaluate.h"

#include <map>
#include <set>

#include "core/error.h"
#include "football/ngram_mlp.h"

namespace dmlkit::football {
namespace {

// The true segments: the feed's true labels at their true times, merged and padded as the
// predictions are.
std::vector<Segment> truth_segments(const MatchText& m, const PipelineConfig& c, const VideoClock& clock) {
  std::vector<TextLine> lines;
  std::vector<Tagged> tags;
  for (const auto& l : m.lines) {
    if (l.label < 0 || !l.has_true_time) continue;
    TextLine t = l;
    t.minute.period = l.true_period;
    t.minute.clock_s = period_base_s(l.true_period) + l.true_s;
    lines.push_back(t);
    tags.push_back({l.label, 1.0});
  }
  VideoClock exact = clock;
  exact.lag_s = 0;
  return make_segments(merge_units(lines, tags, exact, c.max_gap_s), lines, c.padding);
}

std::vector<TimedEvent> truth_spots(const MatchText& m) {
  std::vector<TimedEvent> out;
  std::set<std::string> seen;
  for (const auto& l : m.lines) {
    if (l.label < 0 || l.label == kOther || !l.has_true_time || !seen.insert(l.event_id).second) continue;
    TimedEvent e;
    e.period = l.true_period;
    e.t_s = l.true_s;
    e.label = l.label;
    e.id = l.event_id;
    out.push_back(e);
  }
  return out;
}

std::vector<TimedEvent> segment_spots(const std::vector<Segment>& segs, const VideoClock& clock) {
  std::vector<TimedEvent> out;
  for (const auto& s : segs) {
    TimedEvent e;
    e.period = s.period;
    e.t_s = s.spot_s - clock.kickoff_s[s.period - 1];
    e.label = s.label;
    e.confidence = s.confidence;
    out.push_back(e);
  }
  return out;
}

// Pools per-match segment scores (pairs never cross matches).
SegmentScores pool(const std::vector<const SegmentScores*>& parts) {
  SegmentScores s;
  double iou_sum = 0;
  std::vector<double> tp(s.thresholds.size(), 0);
  for (const auto* p : parts) {
    s.predicted += p->predicted;
    s.truth += p->truth;
    iou_sum += p->mean_tiou * p->truth;
    for (size_t k = 0; k < tp.size(); ++k) tp[k] += p->recall[k] * p->truth;
  }
  s.mean_tiou = s.truth > 0 ? iou_sum / s.truth : 0;
  for (size_t k = 0; k < tp.size(); ++k) {
    s.precision.push_back(s.predicted > 0 ? tp[k] / s.predicted : 0);
    s.recall.push_back(s.truth > 0 ? tp[k] / s.truth : 0);
  }
  return s;
}

}  // namespace

std::vector<Tagged> tag_match(const MatchText& match, const std::vector<const MatchText*>& training,
                              const PipelineConfig& c) {
  const auto& reg = tagger_registry();
  reg.check_knobs({c.tagger}, c.knobs);
  const TaggerEntry& e = reg.get(c.tagger);
  const Knobs knobs(c.knobs, e.knobs, "--tagger-param");
  if (c.lomo && e.traits.trainable && c.model_path.empty()) {
    if (training.empty()) throw Error("", 0, "lines", "leave-one-match-out needs at least two labelled matches");
    std::vector<MatchText> train;
    for (const auto* t : training) train.push_back(*t);
    return make_ngram_mlp_tagger(train_ngram_mlp(train, ngram_mlp_config(knobs, c.seed)), knobs)->tag(match.lines);
  }
  return e.make({c.model_path}, knobs)->tag(match.lines);
}

Evaluation evaluate_pipeline(const std::vector<MatchText>& matches, const PipelineConfig& c) {
  Evaluation ev;
  ev.timed = !matches.empty();
  for (const auto& m : matches) ev.timed = ev.timed && m.has_true_times();
  auto pooled_confusion = empty_confusion();
  for (size_t i = 0; i < matches.size(); ++i) {
    const MatchText& m = matches[i];
    std::vector<const MatchText*> others;
    for (size_t j = 0; j < matches.size(); ++j)
      if (j != i) others.push_back(&matches[j]);
    MatchEvaluation me;
    me.match = &m;
    me.tags = tag_match(m, others, c);
    auto conf = empty_confusion();
    for (size_t t = 0; t < m.lines.size(); ++t)
      if (m.lines[t].label >= 0) ++conf[m.lines[t].label][me.tags[t].label], ++pooled_confusion[m.lines[t].label][me.tags[t].label];
    me.tagging = tagging_scores(conf);
    me.timed = m.has_true_times();
    if (me.timed) {
      VideoClock clock = feed_clock(m);
      me.truth_segments = truth_segments(m, c, clock);
      me.truth_spots = truth_spots(m);
      std::vector<const MatchText*> lag_from;
      for (const auto* o : others)
        if (o->has_true_times()) lag_from.push_back(o);
      me.lag_source = lag_from.empty() ? "this match (no other match with both clocks)" : "the other matches";
      if (lag_from.empty()) lag_from.push_back(&m);
      for (int run = 0; run < 2; ++run) {
        clock.lag_s = run == 0 ? 0.0 : estimate_lag_s(lag_from);
        LagRun& r = me.runs[run];
        r.lag_s = clock.lag_s;
        const auto units = merge_units(m.lines, me.tags, clock, c.max_gap_s);
        me.units = static_cast<int>(units.size());
        r.segments = make_segments(units, m.lines, c.padding);
        r.scores = segment_scores(r.segments, me.truth_segments);
      }
    }
    ev.matches.push_back(std::move(me));
  }
  ev.tagging = tagging_scores(pooled_confusion);
  if (!ev.timed) return ev;
  std::set<int> classes;
  for (const auto& me : ev.matches)
    for (const auto& e : me.truth_spots) classes.insert(e.label);
  ev.spotting_classes.assign(classes.begin(), classes.end());
  for (int run = 0; run < 2; ++run) {
    std::vector<SpottingGame> all;
    std::vector<const SegmentScores*> parts;
    for (auto& me : ev.matches) {
      VideoClock clock = feed_clock(*me.match);
      SpottingGame g{me.truth_spots, segment_spots(me.runs[run].segments, clock)};
      me.runs[run].loose = average_map({g}, ev.spotting_classes, loose_deltas_s());
      me.runs[run].tight = average_map({g}, ev.spotting_classes, tight_deltas_s());
      all.push_back(std::move(g));
      parts.push_back(&me.runs[run].scores);
    }
    ev.pooled[run].scores = pool(parts);
    ev.pooled[run].loose = average_map(all, ev.spotting_classes, loose_deltas_s());
    ev.pooled[run].tight = average_map(all, ev.spotting_classes, tight_deltas_s());
    ev.pooled[run].lag_s = 0;
    for (const auto& me : ev.matches) ev.pooled[run].lag_s += me.runs[run].lag_s / ev.matches.size();
  }
  return ev;
}

}  // namespace dmlkit::football
