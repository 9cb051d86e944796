// Summary statistics over repeated runs (seeds): mean, sample standard deviation (n - 1; 0 for
// fewer than two values), min and max. The one summary every multi-seed result reports.
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

}  // namespace dmlkit
