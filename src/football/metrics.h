// Tagging and segment metrics (specs D.4, [R]):
// - tagging: the confusion matrix over lines with a true label; per-class precision, recall and
//   F1 (0 when undefined); macro-F1 = the mean F1 over the classes that occur in the truth or in
//   the predictions (scikit-learn's f1_score(average="macro") default label set); accuracy.
// - segments: predicted and true segments of the same label are paired one-to-one greedily by
//   temporal IoU (highest first, pairs with IoU > 0); mean_tiou = the mean over true segments of
//   their pair's IoU (0 when unpaired); precision/recall at IoU >= t count the pairs reaching t.
#pragma once
#include <vector>

#include "football/units.h"

namespace dmlkit::football {

struct TaggingScores {
  std::vector<std::vector<int>> confusion;  // [true][predicted]
  std::vector<double> precision, recall, f1;
  std::vector<int> support;                 // true lines per class
  std::vector<bool> scored;                 // in the macro average
  double macro_f1 = 0;
  double accuracy = 0;
  int lines = 0;
};

// Adds one line (true label, predicted label) to a confusion matrix (coarse_count() square).
TaggingScores tagging_scores(const std::vector<std::vector<int>>& confusion);
std::vector<std::vector<int>> empty_confusion();

double temporal_iou(double a0, double a1, double b0, double b1);

struct SegmentScores {
  int predicted = 0, truth = 0;
  double mean_tiou = 0;
  std::vector<double> thresholds{0.3, 0.5, 0.7};
  std::vector<double> precision, recall;  // per threshold
};
SegmentScores segment_scores(const std::vector<Segment>& predicted, const std::vector<Segment>& truth);

}  // namespace dmlkit::football
