// EWMA throughput estimates (see psld_estimator.h).
#include "ps/policies/psld_estimator.h"

#include <algorithm>

namespace dmlkit::ps {

ThroughputEstimator::ThroughputEstimator(int servers, double alpha)
    : alpha_(alpha), bytes_(servers, 0.0), busy_(servers, 0.0), age_(servers, 0), known_(servers, 0) {}

void ThroughputEstimator::observe(const IterationObservation& obs) {
  for (size_t j = 0; j < bytes_.size(); ++j) {
    const bool seen = j < obs.servers.size() && obs.servers[j].bytes > 0 && obs.servers[j].busy_s > 0;
    if (!seen) {
      ++age_[j];
      continue;
    }
    const auto& o = obs.servers[j];
    if (!known_[j]) {
      bytes_[j] = o.bytes;
      busy_[j] = o.busy_s;
      known_[j] = 1;
    } else {
      bytes_[j] = (1 - alpha_) * bytes_[j] + alpha_ * o.bytes;
      busy_[j] = (1 - alpha_) * busy_[j] + alpha_ * o.busy_s;
    }
    age_[j] = 0;
  }
}

double ThroughputEstimator::throughput_Bps(int j) const {
  return known_[j] && busy_[j] > 0 ? bytes_[j] / busy_[j] : 0.0;
}

double ThroughputEstimator::median_Bps(const std::vector<int>& servers) const {
  std::vector<double> v;
  for (int j : servers)
    if (known_[j]) v.push_back(throughput_Bps(j));
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::vector<double> ThroughputEstimator::all_Bps() const {
  std::vector<double> out;
  for (size_t j = 0; j < bytes_.size(); ++j) out.push_back(throughput_Bps(static_cast<int>(j)));
  return out;
}

void ThroughputEstimator::forget(int j) {
  known_[j] = 0;
  bytes_[j] = busy_[j] = 0;
}

}  // namespace dmlkit::ps
