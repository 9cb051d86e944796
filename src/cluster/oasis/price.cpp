// OASiS price functions and their bounds (see price.h).
#include "cluster/oasis/price.h"

#include <algorithm>
#include <cmath>

#include "core/table.h"

namespace dmlkit::cluster::oasis {

double PriceFamily::price(double f) const {
  if (!priced) return 0;
  f = std::clamp(f, 0.0, 1.0);
  return lower * std::pow(upper / lower, f);
}

double PriceBounds::competitive_ratio() const {
  double alpha = 1;
  for (int k = 0; k < (shared ? 1 : 2); ++k)
    for (int r = 0; r < kNumResources; ++r)
      if (family[k][r].priced) alpha = std::max(alpha, std::log(family[k][r].upper / family[k][r].lower));
  return 2 * alpha;
}

std::vector<std::string> PriceBounds::describe() const {
  std::vector<std::string> out;
  for (int k = 0; k < (shared ? 1 : 2); ++k)
    for (int r = 0; r < kNumResources; ++r) {
      const PriceFamily& f = family[k][r];
      if (!f.priced) continue;
      char buf[200];
      std::snprintf(buf, sizeof buf, "price %s %s: L=%.6g U=%.6g", shared ? "shared" : (k == 0 ? "worker" : "ps"),
                    resource_name(r), f.lower, f.upper);
      out.emplace_back(buf);
    }
  return out;
}

PriceBounds price_bounds(const OasisWorkloadSpec& s, bool shared, double l_scale, double u_scale) {
  PriceBounds b;
  b.shared = shared;
  const double d_min = std::max(1.0, std::ceil(s.chunks.lo) * s.per_worker_slots.lo);
  const double d_max = std::max(d_min, std::floor(s.chunks.hi) * s.per_worker_slots.hi);
  const double gamma_max = std::max(1.0, std::floor(s.workers_per_ps.hi));
  const double value_max = std::max(1e-12, s.priority.hi);
  const double value_min = std::max(1e-12, s.priority.lo / 2);
  // The smallest positive demand of a range: its lower end, or 1% of its upper end if that is 0 [A].
  auto low = [](double lo, double hi) { return lo > 0 ? lo : 0.01 * hi; };
  // usage ranges per family and resource (resource-slots of one job)
  double umin[2][kNumResources] = {}, umax[2][kNumResources] = {};
  for (int r = 0; r < kNumResources; ++r) {
    const double a_lo = low(s.worker_lo[r], s.worker_hi[r]), a_hi = s.worker_hi[r];
    const double b_lo = low(s.ps_lo[r], s.ps_hi[r]), b_hi = s.ps_hi[r];
    const double ps_min = std::ceil(d_min / gamma_max);
    if (shared) {
      umin[0][r] = d_min * a_lo + ps_min * b_lo;
      umax[0][r] = d_max * (a_hi + b_hi);
    } else {
      umin[0][r] = d_min * a_lo;
      umax[0][r] = d_max * a_hi;
      umin[1][r] = ps_min * b_lo;
      umax[1][r] = d_max * b_hi;
    }
  }
  int eta = 0;
  for (int k = 0; k < (shared ? 1 : 2); ++k)
    for (int r = 0; r < kNumResources; ++r) eta += umax[k][r] > 0 ? 1 : 0;
  for (int k = 0; k < (shared ? 1 : 2); ++k)
    for (int r = 0; r < kNumResources; ++r) {
      PriceFamily& f = b.family[k][r];
      if (!(umax[k][r] > 0) || !(umin[k][r] > 0)) continue;
      f.priced = true;
      f.upper = u_scale * value_max / umin[k][r];
      f.lower = l_scale * value_min / (std::max(1, eta) * umax[k][r]);
      if (f.lower >= f.upper) f.lower = f.upper * 0.5;  // degenerate ranges: keep P increasing
    }
  return b;
}

}  // namespace dmlkit::cluster::oasis
