// Summary statistics over repeated runs (seeds): mean, sample standard deviation (n - 1; 0 for
// fewer than two values), min and max. The one summary every multi-seed result reports. And the
// one percentile definition of dmlkit (docs/results-schema.md).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

namespace dmlkit {

struct Summary {
  double mean = 0, sd = 0, min = 0, max = 0;
};

inline Summary summarize(const std::vector<double>& v) {
  Summary s;
  if (v.empty()) return s;
  s.min = s.max = v[0];
  for (double x : v) {
    s.mean += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return s;
}

// The q-th percentile (q in [0, 100]) with linear interpolation between order statistics: numpy's
// default (method "linear", Hyndman & Fan type 7): position q/100 * (n - 1) in the sorted values.
// 0 for no values. Every p50/p95/p99 that dmlkit reports (JCTs, decision latencies) is this one.
inline double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  q = std::clamp(q, 0.0, 100.0);
  const double pos = q / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

}  // namespace dmlkit
