// Tagging and segment metrics (metrics.h).
#include "football/metrics.h"

#include <algorithm>
#include <tuple>

#include "football/labels.h"

namespace dmlkit::football {

std::vector<std::vector<int>> empty_confusion() {
  return std::vector<std::vector<int>>(coarse_count(), std::vector<int>(coarse_count(), 0));
}

TaggingScores tagging_scores(const std::vector<std::vector<int>>& c) {
  const int k = static_cast<int>(c.size());
  TaggingScores s;
  s.confusion = c;
  s.precision.assign(k, 0);
  s.recall.assign(k, 0);
  s.f1.assign(k, 0);
  s.support.assign(k, 0);
  s.scored.assign(k, false);
  int correct = 0, scored = 0;
  double f1_sum = 0;
  for (int y = 0; y < k; ++y) {
    int tp = c[y][y], pred = 0, truth = 0;
    for (int z = 0; z < k; ++z) pred += c[z][y], truth += c[y][z];
    s.support[y] = truth;
    s.lines += truth;
    correct += tp;
    s.precision[y] = pred > 0 ? double(tp) / pred : 0;
    s.recall[y] = truth > 0 ? double(tp) / truth : 0;
    const double d = s.precision[y] + s.recall[y];
    s.f1[y] = d > 0 ? 2 * s.precision[y] * s.recall[y] / d : 0;
    s.scored[y] = pred > 0 || truth > 0;
    if (s.scored[y]) f1_sum += s.f1[y], ++scored;
  }
  s.macro_f1 = scored > 0 ? f1_sum / scored : 0;
  s.accuracy = s.lines > 0 ? double(correct) / s.lines : 0;
  return s;
}

double temporal_iou(double a0, double a1, double b0, double b1) {
  const double inter = std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
  const double uni = std::max(a1, b1) - std::min(a0, b0);
  return uni > 0 ? inter / uni : 0;
}

SegmentScores segment_scores(const std::vector<Segment>& pred, const std::vector<Segment>& truth) {
  SegmentScores s;
  s.predicted = static_cast<int>(pred.size());
  s.truth = static_cast<int>(truth.size());
  std::vector<std::tuple<double, size_t, size_t>> pairs;  // (iou, pred, truth)
  for (size_t i = 0; i < pred.size(); ++i)
    for (size_t j = 0; j < truth.size(); ++j)
      if (pred[i].label == truth[j].label) {
        const double iou = temporal_iou(pred[i].start_s, pred[i].end_s, truth[j].start_s, truth[j].end_s);
        if (iou > 0) pairs.emplace_back(iou, i, j);
      }
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  std::vector<bool> used_p(pred.size()), used_t(truth.size());
  std::vector<double> matched;
  for (const auto& [iou, i, j] : pairs) {
    if (used_p[i] || used_t[j]) continue;
    used_p[i] = used_t[j] = true;
    matched.push_back(iou);
  }
  double sum = 0;
  for (double m : matched) sum += m;
  s.mean_tiou = truth.empty() ? 0 : sum / truth.size();
  for (double t : s.thresholds) {
    int tp = 0;
    for (double m : matched) tp += m >= t;
    s.precision.push_back(pred.empty() ? 0 : double(tp) / pred.size());
    s.recall.push_back(truth.empty() ? 0 : double(tp) / truth.size());
  }
  return s;
}

}  // namespace dmlkit::football
