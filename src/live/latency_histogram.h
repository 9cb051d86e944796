// A latency histogram with fixed bucket bounds, as Prometheus histograms are exposed: counts per
// bucket, the sum and the count. Fixed memory however long `cluster serve` runs.
#pragma once
#include <array>
#include <cstdint>

namespace dmlkit::live {

struct LatencyHistogram {
  // Upper bounds of the buckets (seconds); an observation above the last counts only in +Inf.
  static constexpr std::array<double, 13> kBoundsS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                      0.25,  0.5,    1.0,   2.5,  5.0,   10.0};
  std::array<uint64_t, kBoundsS.size()> in_bucket{};  // observations in (bound[i-1], bound[i]]
  uint64_t count = 0;
  double sum_s = 0;

  void add(double seconds) {
    for (size_t i = 0; i < kBoundsS.size(); ++i)
      if (seconds <= kBoundsS[i]) {
        ++in_bucket[i];
        break;
      }
    ++count;
    sum_s += seconds;
  }
  // Observations <= kBoundsS[i] (Prometheus buckets are cumulative).
  uint64_t at_most(size_t i) const {
    uint64_t n = 0;
    for (size_t k = 0; k <= i && k < in_bucket.size(); ++k) n += in_bucket[k];
    return n;
  }
};

}  // namespace dmlkit::live
