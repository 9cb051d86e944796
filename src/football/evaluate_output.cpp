#include "football/evaluate_output.h"

#include <algorithm>
#include <cmath>

#include "core/html_report.h"
#include "football/labels.h"

namespace dmlkit::football {
namespace fb = dmlkit::football;
namespace {

std::string clock_text(double s) {
  const long t = std::lround(s);
  char b[32];
  std::snprintf(b, sizeof b, "%s%ld:%02ld", t < 0 ? "-" : "", std::labs(t) / 60, std::labs(t) % 60);
  return b;
}

void add_segment_metrics(nlohmann::ordered_json& m, const fb::LagRun& r, int units) {
  m["lag_s"] = r.lag_s;
  if (units >= 0) m["units"] = units;
  m["segments"] = r.scores.predicted;
  m["truth_segments"] = r.scores.truth;
  m["mean_tiou"] = r.scores.mean_tiou;
  for (size_t k = 0; k < r.scores.thresholds.size(); ++k) {
    const std::string t = fixed(r.scores.thresholds[k], 1);
    m["precision_iou" + t] = r.scores.precision[k];
    m["recall_iou" + t] = r.scores.recall[k];
  }
  m["amap_loose"] = r.loose.average_map;
  m["amap_tight"] = r.tight.average_map;
}

}  // namespace

void add_evaluation_records(Results& res, const fb::Evaluation& ev, const std::string& tagger, uint64_t seed) {
  const auto& labels = fb::coarse_labels();
  for (const auto& me : ev.matches) {
    for (int run = 0; run < (me.timed ? 2 : 1); ++run) {
      auto& r = res.add(tagger, seed);
      r.params["match"] = me.match->name;
      if (me.timed) r.params["lag_corrected"] = run == 1;
      r.metrics["lines"] = me.tagging.lines;
      r.metrics["macro_f1"] = me.tagging.macro_f1;
      r.metrics["accuracy"] = me.tagging.accuracy;
      if (me.timed) add_segment_metrics(r.metrics, me.runs[run], me.units);
    }
  }
  int total_units = 0;
  for (const auto& me : ev.matches) total_units += me.units;
  for (int run = 0; run < (ev.timed ? 2 : 1); ++run) {
    auto& r = res.add(tagger, seed);
    r.params["match"] = "all";
    if (ev.timed) r.params["lag_corrected"] = run == 1;
    r.metrics["lines"] = ev.tagging.lines;
    r.metrics["macro_f1"] = ev.tagging.macro_f1;
    r.metrics["accuracy"] = ev.tagging.accuracy;
    if (ev.timed) add_segment_metrics(r.metrics, ev.pooled[run], total_units);
    for (int y = 0; y < fb::coarse_count(); ++y) {
      if (!ev.tagging.scored[y]) continue;
      r.metrics["precision_" + labels[y]] = ev.tagging.precision[y];
      r.metrics["recall_" + labels[y]] = ev.tagging.recall[y];
      r.metrics["f1_" + labels[y]] = ev.tagging.f1[y];
    }
  }
  auto& d = res.derived();
  d["macro_f1"] = ev.tagging.macro_f1;
  d["accuracy"] = ev.tagging.accuracy;
  auto& pc = d["per_class"] = nlohmann::ordered_json::object();
  for (int y = 0; y < fb::coarse_count(); ++y) {
    if (!ev.tagging.scored[y]) continue;
    pc[labels[y]] = {{"precision", ev.tagging.precision[y]},
                     {"recall", ev.tagging.recall[y]},
                     {"f1", ev.tagging.f1[y]},
                     {"support", ev.tagging.support[y]}};
  }
  d["confusion_labels"] = labels;
  d["confusion"] = ev.tagging.confusion;
  if (ev.timed) {
    d["merged_units"] = total_units;
    nlohmann::ordered_json cls = nlohmann::ordered_json::array();
    for (int c : ev.spotting_classes) cls.push_back(labels[c]);
    d["spotting_classes"] = cls;
    for (int run = 0; run < 2; ++run) {
      auto& x = d[run == 0 ? "spotting_no_lag" : "spotting_lag_corrected"];
      x["amap_loose"] = ev.pooled[run].loose.average_map;
      x["amap_tight"] = ev.pooled[run].tight.average_map;
      x["map_per_delta_loose"] = ev.pooled[run].loose.map_per_delta;
      x["map_per_delta_tight"] = ev.pooled[run].tight.map_per_delta;
    }
  }
}

TextTable evaluation_summary_table(const fb::Evaluation& ev) {
  // Column names as in results.json (docs/results-schema.md, "Names on screen and in reports").
  TextTable t = ev.timed ? TextTable({"match", "lag_s", "lines", "macro_f1", "accuracy", "units", "segments",
                                      "truth_segments", "mean_tiou", "recall_iou0.5", "amap_loose", "amap_tight"})
                         : TextTable({"match", "lines", "macro_f1", "accuracy"});
  auto row = [&](const std::string& name, const fb::TaggingScores& ts, const fb::LagRun* r, int units, bool timed) {
    std::vector<std::string> cells{name};
    if (ev.timed) cells.push_back(fixed(r->lag_s, 1));
    for (auto s : {std::to_string(ts.lines), fixed(ts.macro_f1, 3), fixed(ts.accuracy, 3)}) cells.push_back(s);
    if (timed && ev.timed) {
      for (auto s : {std::to_string(units), std::to_string(r->scores.predicted), std::to_string(r->scores.truth),
                     fixed(r->scores.mean_tiou, 3), fixed(r->scores.recall[1], 3), fixed(r->loose.average_map, 3),
                     fixed(r->tight.average_map, 3)})
        cells.push_back(s);
    }
    t.add_row(cells);
  };
  int units = 0;
  for (const auto& me : ev.matches) {
    units += me.units;
    for (int run = 0; run < (me.timed && ev.timed ? 2 : 1); ++run)
      row(me.match->name, me.tagging, &me.runs[run], me.units, me.timed);
  }
  for (int run = 0; run < (ev.timed ? 2 : 1); ++run) row("all", ev.tagging, &ev.pooled[run], units, ev.timed);
  return t;
}

TextTable class_table(const fb::TaggingScores& s) {
  TextTable t({"label", "support", "precision", "recall", "f1"});
  for (int y = 0; y < fb::coarse_count(); ++y)
    if (s.scored[y])
      t.add_row({fb::coarse_labels()[y], std::to_string(s.support[y]), fixed(s.precision[y], 3), fixed(s.recall[y], 3),
                 fixed(s.f1[y], 3)});
  return t;
}

TextTable confusion_table(const fb::TaggingScores& s) {
  std::vector<std::string> header{"true \\ tagged"};
  for (const auto& l : fb::coarse_labels()) header.push_back(l);
  TextTable t(header);
  for (int y = 0; y < fb::coarse_count(); ++y) {
    std::vector<std::string> row{fb::coarse_labels()[y]};
    for (int z = 0; z < fb::coarse_count(); ++z) row.push_back(std::to_string(s.confusion[y][z]));
    t.add_row(row);
  }
  return t;
}

TextTable lines_table(const fb::Evaluation& ev) {
  TextTable t({"match", "line", "minute", "label", "tagged", "confidence", "text"});
  for (const auto& me : ev.matches)
    for (size_t i = 0; i < me.match->lines.size(); ++i) {
      const auto& l = me.match->lines[i];
      t.add_row({me.match->name, std::to_string(l.line), l.minute.text,
                 l.label >= 0 ? fb::coarse_labels()[l.label] : "", fb::coarse_labels()[me.tags[i].label],
                 fixed(me.tags[i].confidence, 4), l.text});
    }
  return t;
}

TextTable segments_table(const fb::Evaluation& ev) {
  TextTable t(
      {"match", "kind", "label", "period", "spot_s", "start_s", "end_s", "confidence", "lines", "minute", "text"});
  for (const auto& me : ev.matches) {
    if (!me.timed) continue;
    auto add = [&](const std::string& kind, const std::vector<fb::Segment>& segs) {
      for (const auto& s : segs)
        t.add_row({me.match->name, kind, fb::coarse_labels()[s.label], std::to_string(s.period), fixed(s.spot_s, 1),
                   fixed(s.start_s, 1), fixed(s.end_s, 1), fixed(s.confidence, 4), std::to_string(s.lines), s.minute,
                   s.text});
    };
    add("truth", me.truth_segments);
    add("text", me.runs[0].segments);
    add("text_lag_corrected", me.runs[1].segments);
  }
  return t;
}

HtmlReport evaluation_report(const fb::Evaluation& ev, const std::string& tagger, const std::string& setup) {
  HtmlReport rep("dmlkit football: tagger " + tagger);
  int lines = 0;
  for (const auto& me : ev.matches) lines += static_cast<int>(me.match->lines.size());
  rep.add_facts({{"Tagger", tagger},
                 {"Setup", setup},
                 {"Matches", std::to_string(ev.matches.size())},
                 {"Lines", std::to_string(lines)}});
  rep.add_heading("Scores");
  rep.add_table(
      evaluation_summary_table(ev),
      "macro_f1 over the classes present in the truth or the tags. lag: the correction subtracted (s), "
      "estimated on the other matches. mean_tiou: mean over true segments of the paired segment's temporal IoU. "
      "amap: SoccerNet average-mAP (loose 5-60 s, tight 1-5 s) of the segments' spots.");
  rep.add_heading("Per class (all matches)");
  rep.add_table(class_table(ev.tagging));
  rep.add_heading("Confusion matrix (lines, all matches)");
  rep.add_table(confusion_table(ev.tagging));
  for (const auto& me : ev.matches) {
    rep.add_heading("Timeline: " + me.match->name, 3);
    if (me.timed) {
      // Highlight events so far against video time: the truth, the text segments, the lag-corrected ones.
      auto series = [](const std::string& label, std::vector<double> t) {
        std::sort(t.begin(), t.end());
        ChartSeries s;
        s.label = label;
        s.step = true;
        s.x.push_back(0);
        s.y.push_back(0);
        for (size_t i = 0; i < t.size(); ++i) s.x.push_back(t[i] / 60), s.y.push_back(static_cast<double>(i + 1));
        return s;
      };
      std::vector<double> truth, text, corrected;
      for (const auto& s : me.truth_segments) truth.push_back(s.spot_s);
      for (const auto& s : me.runs[0].segments) text.push_back(s.spot_s);
      for (const auto& s : me.runs[1].segments) corrected.push_back(s.spot_s);
      LineChart c;
      c.title = "Highlight events so far";
      c.x_title = "video minute (the feed's wall clock since the first kick-off)";
      c.y_title = "events";
      c.y_integer = true;
      c.series = {series("true events", truth), series("text segments", text),
                  series("text segments, lag-corrected", corrected)};
      rep.add_chart(c);
    }
    TextTable t({"minute", "true time", "text time (lag-corrected)", "true label", "tagged", "text"});
    fb::VideoClock clock;
    if (me.timed) {
      clock = fb::feed_clock(*me.match);
      clock.lag_s = me.runs[1].lag_s;
    }
    for (size_t i = 0; i < me.match->lines.size(); ++i) {
      const auto& l = me.match->lines[i];
      const int truth = l.label;
      const int tag = me.tags[i].label;
      if (truth == fb::kOther && tag == fb::kOther) continue;
      t.add_row({l.minute.text, me.timed && l.has_true_time ? clock_text(clock.video_s(l.true_period, l.true_s)) : "",
                 me.timed ? clock_text(clock.line_video_s(l.minute)) : "", truth >= 0 ? fb::coarse_labels()[truth] : "",
                 fb::coarse_labels()[tag] + (truth >= 0 && truth != tag ? " (wrong)" : ""), l.text});
    }
    rep.add_table(t,
                  "Lines whose true or tagged label is a highlight (not other); times are video m:ss, the "
                  "feed's own wall clock since the first kick-off standing in for the video.");
  }
  return rep;
}

}  // namespace dmlkit::football
