// SoccerNet average-mAP (spotting_map.h).
#include "football/spotting_map.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace dmlkit::football {
namespace {

struct Scored {
  double score;
  bool tp;
};

int frame_of(double t_s, double framerate, int frames) {
  const long f = static_cast<long>(framerate * std::max(0.0, t_s));  // int() truncation, t >= 0
  return static_cast<int>(std::min<long>(f, frames - 1));
}

// compute_class_scores for one class of one period: gt frames and (frame -> confidence).
void class_scores(const std::set<int>& gt, const std::map<int, double>& det, double d, std::vector<Scored>& out) {
  std::vector<std::pair<int, double>> preds(det.begin(), det.end());  // frame order
  std::vector<bool> tp(preds.size(), false), removed(preds.size(), false);
  for (int g : gt) {
    double max_score = -1;
    long chosen = -1;
    for (size_t k = 0; k < preds.size(); ++k) {
      const int p = preds[k].first;
      if (p < g - d) continue;
      if (p > g + d) break;
      if (std::abs(p - g) <= d / 2 && preds[k].second > max_score && !removed[k]) {
        max_score = preds[k].second;
        chosen = static_cast<long>(k);
      }
    }
    if (chosen >= 0) tp[chosen] = removed[chosen] = true;
  }
  for (size_t k = 0; k < preds.size(); ++k) out.push_back({preds[k].second, tp[k]});
}

double eleven_point_ap(const std::vector<double>& precision, const std::vector<double>& recall) {
  double ap = 0;
  for (int j = 0; j <= 10; ++j) {
    const double r = j / 10.0;
    double best = 0;
    bool any = false;
    for (size_t i = 0; i < recall.size(); ++i)
      if (recall[i] >= r) best = any ? std::max(best, precision[i]) : precision[i], any = true;
    ap += any ? best : 0;
  }
  return ap / 11;
}

}  // namespace

std::vector<double> loose_deltas_s() {
  std::vector<double> d;
  for (int i = 0; i < 12; ++i) d.push_back(5.0 * i + 5);
  return d;
}

std::vector<double> tight_deltas_s() { return {1, 2, 3, 4, 5}; }

SpottingResult average_map(const std::vector<SpottingGame>& games, const std::vector<int>& classes,
                           const std::vector<double>& deltas_s, double framerate) {
  const int frames = static_cast<int>(120 * 60 * framerate);
  // Per (game, period, class): the frame vectors.
  struct Half {
    std::map<int, std::set<int>> gt;               // class -> frames
    std::map<int, std::map<int, double>> det;      // class -> frame -> confidence (last wins)
  };
  std::vector<Half> halves;
  for (const auto& g : games) {
    std::map<int, Half> by_period;
    for (const auto& e : g.truth) by_period[e.period].gt[e.label].insert(frame_of(e.t_s, framerate, frames));
    for (const auto& e : g.predictions)
      if (e.confidence >= 0) by_period[e.period].det[e.label][frame_of(e.t_s, framerate, frames)] = e.confidence;
    for (auto& [_, h] : by_period) halves.push_back(std::move(h));
  }
  // numpy.linspace(0, 1, 200): i * (1/199), the last exactly 1.
  std::vector<double> thresholds(200);
  const double step = 1.0 / 199;
  for (int i = 0; i < 200; ++i) thresholds[i] = i * step;
  thresholds[199] = 1.0;

  SpottingResult r;
  r.deltas_s = deltas_s;
  std::vector<std::vector<double>> ap_per_delta;  // [delta][class]
  for (double delta : deltas_s) {
    const double d = delta * framerate;
    std::vector<double> aps;
    for (int c : classes) {
      std::vector<Scored> all;
      long n_gt = 0;
      for (const auto& h : halves) {
        static const std::set<int> kNoGt;
        static const std::map<int, double> kNoDet;
        const auto gi = h.gt.find(c);
        const auto di = h.det.find(c);
        const auto& gt = gi == h.gt.end() ? kNoGt : gi->second;
        const auto& det = di == h.det.end() ? kNoDet : di->second;
        class_scores(gt, det, d, all);
        n_gt += static_cast<long>(gt.size());
      }
      std::vector<double> precision, recall;
      for (double t : thresholds) {
        long n = 0, tp = 0;
        for (const auto& s : all)
          if (s.score >= t) ++n, tp += s.tp;
        precision.push_back(n > 0 ? double(tp) / n : 0.0);
        recall.push_back(n_gt > 0 ? double(tp) / n_gt : 0.0);
      }
      aps.push_back(eleven_point_ap(precision, recall));
    }
    double m = 0;
    for (double a : aps) m += a;
    r.map_per_delta.push_back(aps.empty() ? 0 : m / aps.size());
    ap_per_delta.push_back(aps);
  }
  const size_t n = deltas_s.size();
  auto trapezoid = [&](const std::vector<double>& v) {
    if (v.size() == 1) return v[0];
    double integral = 0;
    for (size_t i = 0; i + 1 < v.size(); ++i) integral += (v[i] + v[i + 1]) / 2;
    return integral / static_cast<double>(v.size() - 1);
  };
  if (n == 0) return r;
  r.average_map = trapezoid(r.map_per_delta);
  for (size_t c = 0; c < classes.size(); ++c) {
    std::vector<double> v;
    for (size_t i = 0; i < n; ++i) v.push_back(ap_per_delta[i][c]);
    r.average_ap_per_class.push_back(trapezoid(v));
  }
  return r;
}

}  // namespace dmlkit::football
