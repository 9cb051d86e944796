// SoccerNet's action-spotting metric, average-mAP, computed as SoccerNet's own evaluation code does
// it (SoccerNet pip package, SoccerNet/Evaluation/ActionSpotting.py: label2vector,
// predictions2vector, compute_class_scores, compute_precision_recall_curve, compute_mAP,
// delta_curve, average_mAP; semantics read there, code written here):
// - each game period is a vector of 120*60*framerate frames (framerate 2); an event sits on frame
//   int(framerate * t_s), clamped to the last frame; one value per frame and class (a later event
//   on the same frame overwrites an earlier one, as the numpy assignment does);
// - for a tolerance delta (s), d = delta*framerate frames; for each true event in frame order, the
//   unmatched prediction of the class with the highest confidence and |frame difference| <= d/2 is
//   a true positive (ties: the earlier frame);
// - 200 confidence thresholds linspace(0, 1, 200); at each, precision = TP / predictions >= t and
//   recall = TP / true events (0 when undefined, numpy's nan_to_num);
// - AP = the 11-point interpolation: the mean over r in {0, 0.1, ..., 1} of the highest precision at
//   a recall >= r (0 if none); mAP = the mean AP over the classes of the dictionary (a class without
//   any true event scores 0, as in SoccerNet);
// - average-mAP = the trapezoidal mean of mAP over the deltas: loose 5, 10, ..., 60 s; tight 1..5 s.
// Only the overall figure is computed (not SoccerNet's visible/unshown split). A spot before its
// period's kick-off (negative time) is put on frame 0 (SoccerNet's negative index would wrap).
#pragma once
#include <vector>

#include "football/lines.h"

namespace dmlkit::football {

struct SpottingGame {
  std::vector<TimedEvent> truth;        // period, t_s, label
  std::vector<TimedEvent> predictions;  // period, t_s, label, confidence in [0, 1]
};

struct SpottingResult {
  double average_map = 0;
  std::vector<double> deltas_s;
  std::vector<double> map_per_delta;
  std::vector<double> average_ap_per_class;  // dictionary order
};

std::vector<double> loose_deltas_s();  // 5, 10, ..., 60
std::vector<double> tight_deltas_s();  // 1, 2, 3, 4, 5

// `classes` is the dictionary: the coarse label indices scored, in order.
SpottingResult average_map(const std::vector<SpottingGame>& games, const std::vector<int>& classes,
                           const std::vector<double>& deltas_s, double framerate = 2);

}  // namespace dmlkit::football
