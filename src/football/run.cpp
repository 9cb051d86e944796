// The `dmlkit football` commands as library calls (see run.h).
#include "football/run.h"

#include <algorithm>
#include <filesystem>

#include "core/data_dir.h"
#include "core/error.h"
#include "football/evaluate_output.h"
#include "football/event_stream.h"
#include "football/labels.h"
#include "football/units.h"

namespace dmlkit::football {

namespace {

std::vector<MatchText> read_all(const std::vector<std::string>& paths) {
  if (paths.empty()) throw Error("", 0, "lines", "no file given");
  std::vector<MatchText> out;
  for (const auto& p : paths) out.push_back(read_match_text(p));
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::vector<std::string> lines_or_shipped(const std::vector<std::string>& lines) {
  return lines.empty() ? shipped_feeds() : lines;
}

std::vector<Padding> padding_of(const std::string& text) {
  std::vector<Padding> padding = default_padding();
  parse_padding(text, padding);
  return padding;
}

}  // namespace

std::vector<std::string> shipped_feeds() {
  return {data_path("football/appsync/so0102sim_match_02.json"), data_path("football/appsync/so0102sim_match_03.json")};
}

KnobValues TaggerChoice::knobs() const {
  KnobValues v;
  add_knob_values(v, params, "--tagger-param");
  return v;
}

void check(const TaggerChoice& o) {
  const KnobValues v = o.knobs();
  tagger_registry().check_knobs({o.tagger}, v);
  if (!o.model.empty() && !tagger_registry().get(o.tagger).traits.trainable)
    throw Error("--model: tagger '" + o.tagger + "' takes no model");
  if (!o.model.empty() && !std::filesystem::exists(o.model)) throw Error(o.model, 0, "", "no such model file");
}

// ---- train

void check(const TrainSpec& spec) {
  KnobValues v;
  add_knob_values(v, spec.params, "--tagger-param");
  tagger_registry().check_knobs({"ngram-mlp"}, v);
}

TrainOutput run(const TrainSpec& spec) {
  check(spec);
  KnobValues v;
  add_knob_values(v, spec.params, "--tagger-param");
  const auto& e = tagger_registry().get("ngram-mlp");
  const Knobs knobs(v, e.knobs, "--tagger-param");
  const auto matches = read_all(lines_or_shipped(spec.lines));
  TrainOutput o;
  o.model = train_ngram_mlp(matches, ngram_mlp_config(knobs, spec.seed));
  std::vector<std::string> names;
  for (const auto& m : matches) names.push_back(std::filesystem::path(m.path).filename().string());
  std::string params;
  for (const auto& p : spec.params) params += " --tagger-param " + p;
  o.model.meta["command"] =
      "dmlkit football train --lines " + join(names) + " --seed " + std::to_string(spec.seed) + params;
  o.model.meta["training_files"] = join(names);
  o.results.inputs()["lines"] = names;
  o.results.inputs()["tagger_params"] = spec.params;
  o.results.inputs()["seeds"] = nlohmann::ordered_json::array({spec.seed});
  auto& r = o.results.add("ngram-mlp", spec.seed);
  r.metrics["training_lines"] = o.model.training_lines;
  r.metrics["final_loss"] = o.model.final_loss;
  r.metrics["parameters"] = o.model.parameters.size();
  r.files["model"] = "ngram-mlp.json";
  return o;
}

std::string TrainOutput::summary_text(const std::string& format, const std::string& folder) const {
  if (format == "json") return results.json_text();
  if (format == "csv") return results.records_table().to_csv();
  return "trained ngram-mlp on " + std::to_string(model.training_lines) + " lines, final loss " +
         fixed(model.final_loss, 4) + "\nmodel: " + folder + "/ngram-mlp.json\n";
}

void TrainOutput::write(OutputDir& out) const {
  save_ngram_mlp(out.staged_path("ngram-mlp.json"), model);
  results.write(out);
}

// ---- tag

void check(const TagSpec& spec) {
  if (spec.lines.empty()) throw Error("--lines: no file given");
  check(spec.tagger);
}

TextTable run(const TagSpec& spec) {
  check(spec);
  const auto m = read_match_text(spec.lines);
  const auto tags = make_tagger(spec.tagger.tagger, {spec.tagger.model}, spec.tagger.knobs())->tag(m.lines);
  TextTable t({"minute", "label", "confidence", "text"});
  for (size_t i = 0; i < m.lines.size(); ++i)
    t.add_row({m.lines[i].minute.text, coarse_labels()[tags[i].label], fixed(tags[i].confidence, 4), m.lines[i].text});
  return t;
}

// ---- evaluate

void check(const EvaluateSpec& spec) {
  if (spec.lomo && !spec.tagger.model.empty())
    throw Error("--model: not used with --lomo (each held-out match trains its own)");
  check(spec.tagger);
  if (!(spec.max_gap_s >= 0)) throw Error("--max-gap-s: must be at least 0");
  padding_of(spec.padding);
}

EvaluateOutput run(const EvaluateSpec& spec) {
  check(spec);
  PipelineConfig c;
  c.tagger = spec.tagger.tagger;
  c.model_path = spec.tagger.model;
  c.knobs = spec.tagger.knobs();
  c.lomo = spec.lomo;
  c.seed = spec.seed;
  c.max_gap_s = spec.max_gap_s;
  c.padding = padding_of(spec.padding);
  EvaluateOutput o;
  o.matches = read_all(lines_or_shipped(spec.lines));
  for (const auto& m : o.matches) {
    bool labelled = false;
    for (const auto& l : m.lines) labelled = labelled || l.label >= 0;
    if (!labelled) throw Error(m.path, 0, "label", "no labelled line to evaluate against");
  }
  o.evaluation = evaluate_pipeline(o.matches, c);
  o.tagger = c.tagger;
  auto& in = o.results.inputs();
  std::vector<std::string> names;
  for (const auto& m : o.matches) names.push_back(m.path);
  in["lines"] = names;
  in["tagger"] = c.tagger;
  in["model"] =
      c.model_path.empty() && !spec.lomo ? tagger_registry().get(c.tagger).traits.default_model : c.model_path;
  in["tagger_params"] = spec.tagger.params;
  in["lomo"] = spec.lomo;
  in["max_gap_s"] = spec.max_gap_s;
  auto& pad = in["padding"] = nlohmann::ordered_json::object();
  for (int y = 0; y < coarse_count(); ++y) pad[coarse_labels()[y]] = {c.padding[y].pre_s, c.padding[y].post_s};
  in["seeds"] = nlohmann::ordered_json::array({spec.seed});
  add_evaluation_records(o.results, o.evaluation, c.tagger, spec.seed);
  const bool trainable = tagger_registry().get(c.tagger).traits.trainable;
  o.setup = !trainable  ? std::string("rules (nothing trained)")
            : spec.lomo ? std::string("leave-one-match-out (trained per held-out match on the others)")
                        : "model as given (" + (c.model_path.empty() ? std::string("shipped") : c.model_path) + ")";
  o.report = evaluation_report(o.evaluation, c.tagger, o.setup);
  return o;
}

std::vector<std::pair<std::string, std::string>> EvaluateOutput::tables() const {
  std::vector<std::pair<std::string, std::string>> t = {
      {"records.csv", results.records_table().to_csv()},
      {"summary.csv", results.summary_table().to_csv()},
      {"lines.csv", lines_table(evaluation).to_csv()},
      {"per_class.csv", class_table(evaluation.tagging).to_csv()},
      {"confusion.csv", confusion_table(evaluation.tagging).to_csv()}};
  if (evaluation.timed) t.push_back({"segments.csv", segments_table(evaluation).to_csv()});
  return t;
}

std::string EvaluateOutput::summary_text(const std::string& format) const {
  if (format == "json") return results.json_text();
  if (format == "csv") return evaluation_summary_table(evaluation).to_csv();
  return "tagger " + tagger + ", " + setup + "\n\n" + evaluation_summary_table(evaluation).render() + "\n" +
         class_table(evaluation.tagging).render();
}

void EvaluateOutput::write(OutputDir& out) const {
  results.write(out);
  out.write("lines.csv", lines_table(evaluation).to_csv());
  out.write("per_class.csv", class_table(evaluation.tagging).to_csv());
  out.write("confusion.csv", confusion_table(evaluation.tagging).to_csv());
  if (evaluation.timed) out.write("segments.csv", segments_table(evaluation).to_csv());
  report.write(out);
}

// ---- segments

void check(const SegmentsSpec& spec) {
  if (spec.lines.empty()) throw Error("--lines: no file given");
  check(spec.tagger);
  padding_of(spec.padding);
  for (size_t i = 0; i < spec.kickoffs.size(); ++i)
    if (!(spec.kickoffs[i] >= 0) || (i > 0 && spec.kickoffs[i] <= spec.kickoffs[i - 1]))
      throw Error("--kickoffs: must be >= 0 and increasing");
  if (!(spec.max_gap_s >= 0)) throw Error("--max-gap-s: must be at least 0");
  if (!(spec.search_s >= 0)) throw Error("--search-s: must be at least 0");
  if (!(spec.min_confidence >= 0 && spec.min_confidence <= 1)) throw Error("--min-confidence: must be in [0, 1]");
}

SegmentsOutput run(const SegmentsSpec& spec) {
  check(spec);
  const KnobValues knobs = spec.tagger.knobs();
  const std::vector<Padding> padding = padding_of(spec.padding);
  const auto m = read_match_text(spec.lines);
  VideoClock clock;
  if (!spec.kickoffs.empty())
    clock.kickoff_s = spec.kickoffs;
  else if (m.has_true_times())
    clock = feed_clock(m);
  else
    throw Error("--kickoffs: required for a CSV (the video second of each period's kick-off)");
  clock.lag_s = spec.lag_s;
  SegmentsOutput o;
  const auto tags = make_tagger(spec.tagger.tagger, {spec.tagger.model}, knobs)->tag(m.lines);
  const auto units = merge_units(m.lines, tags, clock, spec.max_gap_s);
  o.segments = make_segments(units, m.lines, padding);
  o.refined = !spec.events.empty();
  if (o.refined) {
    const EventStream stream = read_event_stream(spec.events, spec.events_format);
    VideoClock stream_clock = clock;
    stream_clock.lag_s = 0;
    o.refine =
        refine_segments(o.segments, EventStreamRefiner(stream, stream_clock, spec.min_confidence), spec.search_s);
  }
  o.lines = m.lines.size();
  o.units = units.size();
  o.game = m.name;
  o.inputs["lines"] = spec.lines;
  o.inputs["tagger"] = spec.tagger.tagger;
  o.inputs["model"] = spec.tagger.model;
  o.inputs["kickoffs_s"] = clock.kickoff_s;
  o.inputs["lag_s"] = spec.lag_s;
  o.inputs["max_gap_s"] = spec.max_gap_s;
  o.inputs["events"] = spec.events;
  for (const auto& s : o.segments) {
    TimedEvent e;
    e.period = s.period;
    e.t_s = s.spot_s - clock.kickoff_s[s.period - 1];
    e.label = s.label;
    e.confidence = s.confidence;
    o.spots.push_back(e);
  }
  o.table = TextTable({"label", "minute", "start_s", "end_s", "lines", "confidence", "refined", "text"});
  for (const auto& s : o.segments)
    o.table.add_row({coarse_labels()[s.label], s.minute, fixed(s.start_s, 1), fixed(s.end_s, 1),
                     std::to_string(s.lines), fixed(s.confidence, 3), s.refined ? "1" : "0", s.text});
  return o;
}

void SegmentsOutput::write(OutputDir& out) const {
  out.write("segments.json", segments_json(segments, inputs));
  out.write("results_spotting.json", soccernet_predictions_json(spots, game));
  out.write("segments.csv", table.to_csv());
}

std::string SegmentsOutput::summary_text(const std::string& format, const std::string& folder) const {
  if (format == "json") return segments_json(segments, inputs);
  if (format == "csv") return table.to_csv();
  std::string s = std::to_string(lines) + " lines, " + std::to_string(units) + " merged units, " +
                  std::to_string(segments.size()) + " segments";
  if (refined)
    s += ", " + std::to_string(refine.refined) + " refined (mean shift " + fixed(refine.mean_shift_s, 1) + " s)";
  return s + "\n\n" + table.render() + "\nsegments: " + folder + "/segments.json\n";
}

// ---- cut

void check(const CutSpec& spec) {
  if (spec.video.empty()) throw Error("--video: no file given");
  if (spec.mode != "auto" && spec.mode != "copy" && spec.mode != "reencode")
    throw Error("--mode: expected auto, copy or reencode, got '" + spec.mode + "'");
  if (!std::filesystem::exists(spec.segments)) throw Error(spec.segments, 0, "", "no such file");
}

CutOutput run(const CutSpec& spec, OutputDir& out) {
  check(spec);
  const auto segments = read_segments_json(spec.segments);
  CutOutput o;
  o.video = probe_video(spec.video);
  CutOptions co;
  co.mode = spec.mode;
  o.clips = cut_segments(spec.video, o.video, segments, spec.segments, out, co);
  return o;
}

std::string CutOutput::summary_text(const std::string& format, const std::string& video_path,
                                    const std::string& folder) const {
  TextTable t({"file", "label", "start_s", "end_s", "stream_copy", "clamped"});
  for (const auto& c : clips)
    t.add_row({c.file, coarse_labels()[c.segment.label], fixed(c.start_s, 3), fixed(c.end_s, 3),
               c.stream_copy ? "1" : "0", c.clamped ? "1" : "0"});
  if (format == "csv") return t.to_csv();
  if (format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& c : clips)
      j.push_back({{"file", c.file},
                   {"label", coarse_labels()[c.segment.label]},
                   {"start_s", c.start_s},
                   {"end_s", c.end_s},
                   {"stream_copy", c.stream_copy},
                   {"clamped", c.clamped}});
    return j.dump(2) + "\n";
  }
  return std::to_string(clips.size()) + " clips from " + video_path + " (" + fixed(video.duration_s, 1) + " s)\n\n" +
         t.render() + "\nplaylist: " + folder + "/highlights.m3u\n";
}

// ---- spotting

void check(const SpottingSpec& spec) {
  if (spec.labels.empty()) throw Error("--labels: no file given");
  if (spec.labels.size() != spec.predictions.size())
    throw Error("--predictions: " + std::to_string(spec.predictions.size()) + " files for " +
                std::to_string(spec.labels.size()) + " --labels files");
  if (spec.dictionary != "soccernet" && spec.dictionary != "coarse")
    throw Error("--dictionary: expected soccernet or coarse, got '" + spec.dictionary + "'");
}

SpottingOutput run(const SpottingSpec& spec) {
  check(spec);
  const bool sn = spec.dictionary == "soccernet";
  const auto& names = sn ? soccernet_v2_labels() : coarse_labels();
  std::vector<int> classes;
  for (int c = 0; c < static_cast<int>(names.size()); ++c)
    if (sn || c != kOther) classes.push_back(c);
  // SoccerNet's dictionary: events are keyed by their SoccerNet class; other labels are skipped.
  auto keyed = [&](std::vector<TimedEvent> ev) {
    std::vector<TimedEvent> out;
    for (auto& e : ev) {
      if (sn) {
        const auto it = std::find(names.begin(), names.end(), e.source_label);
        if (it == names.end()) continue;
        e.label = static_cast<int>(it - names.begin());
      } else if (e.label == kOther) {
        continue;
      }
      out.push_back(e);
    }
    return out;
  };
  std::vector<SpottingGame> games;
  for (size_t i = 0; i < spec.labels.size(); ++i) {
    const auto truth = read_soccernet_json(spec.labels[i]);
    const auto preds = read_soccernet_json(spec.predictions[i]);
    if (truth.format != "soccernet-labels") throw Error(spec.labels[i], 0, "annotations", "not a Labels-v2.json file");
    if (preds.format != "soccernet-predictions")
      throw Error(spec.predictions[i], 0, "predictions", "not a prediction file");
    games.push_back({keyed(truth.events), keyed(preds.events)});
  }
  SpottingOutput o;
  o.dictionary = spec.dictionary;
  for (int c : classes) o.classes.push_back(names[c]);
  o.games = games.size();
  o.loose = average_map(games, classes, loose_deltas_s());
  o.tight = average_map(games, classes, tight_deltas_s());
  return o;
}

std::string SpottingOutput::summary_text(const std::string& format) const {
  if (format == "json") {
    nlohmann::ordered_json j;
    j["dictionary"] = dictionary;
    j["games"] = games;
    j["a_mAP_loose"] = loose.average_map;
    j["a_mAP_tight"] = tight.average_map;
    auto& pc = j["a_mAP_per_class"] = nlohmann::ordered_json::object();
    for (size_t k = 0; k < classes.size(); ++k)
      pc[classes[k]] = {{"loose", loose.average_ap_per_class[k]}, {"tight", tight.average_ap_per_class[k]}};
    return j.dump(2) + "\n";
  }
  TextTable t({"class", "a_mAP_loose", "a_mAP_tight"});
  for (size_t k = 0; k < classes.size(); ++k)
    t.add_row({classes[k], fixed(loose.average_ap_per_class[k], 4), fixed(tight.average_ap_per_class[k], 4)});
  t.add_row({"average-mAP", fixed(loose.average_map, 4), fixed(tight.average_map, 4)});
  return t.render();
}

}  // namespace dmlkit::football
