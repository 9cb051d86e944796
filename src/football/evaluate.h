// The whole pipeline on labelled matches, and its scores (docs/football.md, "Reproduction"):
// tag every line, score the tags; on feeds with true times also merge into units, map to video
// time without and with the lag correction, pad into segments, and score them against the truth
// segments (the same merge and padding applied to the feed's true labels at their wall-clock
// times) and the spots against the true events (SoccerNet average-mAP, loose and tight).
// Leave-one-match-out (lomo): a trainable tagger is trained afresh on the other matches for each
// held-out match, and the lag is estimated on the other matches too.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/knobs.h"
#include "football/metrics.h"
#include "football/spotting_map.h"
#include "football/units.h"

namespace dmlkit::football {

struct PipelineConfig {
  std::string tagger = "ngram-mlp";
  std::string model_path;  // "" = the shipped model
  KnobValues knobs;        // --tagger-param
  bool lomo = false;
  uint64_t seed = 1;
  double max_gap_s = 60;
  std::vector<Padding> padding = default_padding();
};

struct LagRun {  // one lag setting (0 = none, 1 = corrected)
  double lag_s = 0;
  std::vector<Segment> segments;
  SegmentScores scores;
  SpottingResult loose, tight;
};

struct MatchEvaluation {
  const MatchText* match = nullptr;
  std::vector<Tagged> tags;
  TaggingScores tagging;
  bool timed = false;  // a feed with true times
  std::string lag_source;
  int units = 0;
  std::vector<Segment> truth_segments;
  std::vector<TimedEvent> truth_spots;
  LagRun runs[2];
};

struct Evaluation {
  std::vector<MatchEvaluation> matches;
  TaggingScores tagging;  // pooled
  std::vector<int> spotting_classes;  // the mAP dictionary: non-other classes with a true event
  LagRun pooled[2];
  bool timed = false;  // every match has true times
};

Evaluation evaluate_pipeline(const std::vector<MatchText>& matches, const PipelineConfig& config);

// Tags with the configured tagger, or (lomo, trainable) a tagger trained on `training`.
std::vector<Tagged> tag_match(const MatchText& match, const std::vector<const MatchText*>& training,
                              const PipelineConfig& config);

}  // namespace dmlkit::football
