// The `dmlkit football` commands as library calls: a spec per command (train, tag, evaluate,
// segments, cut, spotting) with every field documented, check(spec) that validates it before any
// work (Error naming the field as its CLI option), and run(spec) that returns what the command
// prints and writes (Results, tables, report, segments) in memory; write(OutputDir&) writes the
// output folder. The CLI (apps/dmlkit/football/) and Python (dmlkit.football) fill the specs.
// Defaults: the two shipped feed matches where lines are optional (shipped_feeds()).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/html_report.h"
#include "core/knobs.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/table.h"
#include "football/cut.h"
#include "football/evaluate.h"
#include "football/lines.h"
#include "football/ngram_mlp.h"
#include "football/refine.h"
#include "football/spotting_map.h"
#include "football/tagger.h"

namespace dmlkit::football {

// The two shipped feed matches (data/football/appsync/), the default --lines of train and evaluate.
std::vector<std::string> shipped_feeds();

// --tagger, --model, --tagger-param: the tagger of tag, evaluate and segments.
struct TaggerChoice {
  std::string tagger = kDefaultTagger;  // a registered tagger (`dmlkit football taggers`)
  std::string model;                    // model file of a trainable tagger; "": its shipped model
  std::vector<std::string> params;      // knobs as written, "key=value" (a later one overrides)

  // The knob values; throws Error naming --tagger-param for a bad entry or an undeclared knob.
  KnobValues knobs() const;
};
// Unknown tagger or knob, a model for a tagger that takes none, a model file that does not exist.
void check(const TaggerChoice& tagger);

// `football train`: the ngram-mlp tagger trained on labelled lines.
struct TrainSpec {
  std::vector<std::string> lines;   // feed .json or CSV minute,text,label files; empty: shipped_feeds()
  std::vector<std::string> params;  // ngram-mlp training knobs as written, "key=value"
  uint64_t seed = 1;                // initial weights and batch order
};
void check(const TrainSpec& spec);
struct TrainOutput {
  NgramMlpModel model;
  Results results{"football train", "tagger"};
  // Printed: table (with the model's path under `folder`), json (results.json) or csv (records).
  std::string summary_text(const std::string& format, const std::string& folder) const;
  void write(OutputDir& out) const;  // ngram-mlp.json, results.json, records.csv, summary.csv
};
TrainOutput run(const TrainSpec& spec);

// `football tag`: the tagger's label of every line of a file.
struct TagSpec {
  std::string lines;  // CSV minute,text[,label] or the feed's .json (required)
  TaggerChoice tagger;
};
void check(const TagSpec& spec);
TextTable run(const TagSpec& spec);  // minute, label, confidence, text

// `football evaluate`: tagging, segment and spotting scores on labelled lines.
struct EvaluateSpec {
  std::vector<std::string> lines;  // labelled files (CSV or feed .json); empty: shipped_feeds()
  TaggerChoice tagger;
  bool lomo = false;      // leave one match out: a trainable tagger trained on the other files per file
  uint64_t seed = 1;      // training seed (lomo)
  double max_gap_s = 60;  // merge successive same-label lines at most this far apart (s, >= 0)
  std::string padding;    // per-label padding "label=pre_s:post_s,..." over the defaults (docs/football.md)
};
void check(const EvaluateSpec& spec);
struct EvaluateOutput {
  std::vector<MatchText> matches;  // what `evaluation` points into
  Evaluation evaluation;
  std::string tagger;
  std::string setup;  // "rules (nothing trained)", "leave-one-match-out (...)", "model as given (...)"
  Results results{"football evaluate", "tagger"};
  HtmlReport report{""};
  // Printed: table (setup, scores, per class), json (results.json) or csv (scores).
  std::string summary_text(const std::string& format) const;
  // results.json, records.csv, summary.csv, lines.csv, per_class.csv, confusion.csv, segments.csv
  // (timed feeds), report.html.
  void write(OutputDir& out) const;
  // The same tables as CSV text by file name.
  std::vector<std::pair<std::string, std::string>> tables() const;
};
EvaluateOutput run(const EvaluateSpec& spec);

// `football segments`: live text -> tagged, merged, video-timed highlight segments.
struct SegmentsSpec {
  std::string lines;  // CSV minute,text[,label] or the feed's .json (required)
  TaggerChoice tagger;
  std::vector<double> kickoffs;        // video second of each period's kick-off (s); empty: a feed's own clock
  double lag_s = 0;                    // seconds the live text lags the video (subtracted)
  double max_gap_s = 60;               // merge successive same-label lines at most this far apart (s, >= 0)
  std::string padding;                 // per-label padding "label=pre_s:post_s,..." over the defaults
  std::string events;                  // an event stream refining the segments ("" = none)
  std::string events_format = "auto";  // auto, idsse, wyscout, soccernet, feed
  double search_s = 30;                // refinement looks this far beyond each segment (s, >= 0)
  double min_confidence = 0;           // refinement ignores spots below this confidence ([0, 1])
};
void check(const SegmentsSpec& spec);
struct SegmentsOutput {
  size_t lines = 0, units = 0;
  std::vector<Segment> segments;
  bool refined = false;  // an event stream was given
  RefineStats refine;
  nlohmann::ordered_json inputs;                // segments.json's inputs
  std::string game;                             // the match's name (results_spotting.json)
  std::vector<TimedEvent> spots;                // each segment's spot in game time
  TextTable table{std::vector<std::string>{}};  // segments.csv
  // Printed: table (counts, segments, the folder's segments.json), json (segments.json) or csv.
  std::string summary_text(const std::string& format, const std::string& folder) const;
  void write(OutputDir& out) const;  // segments.json, results_spotting.json, segments.csv
};
SegmentsOutput run(const SegmentsSpec& spec);

// `football cut`: clips of the segments and a playlist, cut with FFmpeg into an output folder.
struct CutSpec {
  std::string video;          // the match video (required)
  std::string segments;       // segments.json of `football segments` (required)
  std::string mode = "auto";  // auto (stream copy when a keyframe starts the clip), copy, reencode
};
void check(const CutSpec& spec);
struct CutOutput {
  VideoInfo video;
  std::vector<Clip> clips;
  std::string summary_text(const std::string& format, const std::string& video_path, const std::string& folder) const;
};
// Writes the clips and highlights.m3u into `out` (created with the video and segments as inputs).
CutOutput run(const CutSpec& spec, OutputDir& out);

// `football spotting`: SoccerNet average-mAP of prediction files against Labels-v2.json files.
struct SpottingSpec {
  std::vector<std::string> labels;       // one Labels-v2.json per game (required)
  std::vector<std::string> predictions;  // one results_spotting.json per game, same order
  std::string dictionary = "soccernet";  // soccernet (17 SoccerNet-v2 classes) or coarse
};
void check(const SpottingSpec& spec);
struct SpottingOutput {
  std::string dictionary;
  std::vector<std::string> classes;  // the classes scored, in order
  size_t games = 0;
  SpottingResult loose, tight;
  std::string summary_text(const std::string& format) const;  // table or json
};
SpottingOutput run(const SpottingSpec& spec);

}  // namespace dmlkit::football
