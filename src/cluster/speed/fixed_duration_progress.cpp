// Fixed-duration (trace replay) progress: GPU-seconds of work done at min(g, request) per second,
// optionally slowed down per extra server. See fixed_duration_progress.h.
#include "cluster/speed/fixed_duration_progress.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmlkit::cluster {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

FixedDurationProgress::FixedDurationProgress(const Job& job, const ProgressOptions& options)
    : request_gpus_(std::max(1, job.num_gpus)),
      total_gpu_s_(std::max(0.0, job.duration_s) * std::max(1, job.num_gpus)),
      remaining_gpu_s_(total_gpu_s_),
      extra_server_slowdown_(std::max(0.0, options.extra_server_slowdown)),
      gpus_per_server_(options.gpus_per_server) {}

double FixedDurationProgress::rate_on(const Placement& placement) const {
  int gpus = 0;
  int servers = 0;
  for (const auto& s : placement) {
    if (s.gpus > 0) {
      gpus += s.gpus;
      ++servers;
    }
  }
  if (gpus <= 0) return 0.0;
  const int useful = std::min(gpus, request_gpus_);
  double rate = useful;
  if (extra_server_slowdown_ > 0 && gpus_per_server_ > 0) {
    const int needed = (useful + gpus_per_server_ - 1) / gpus_per_server_;
    const int extra = std::max(0, servers - needed);
    rate /= 1.0 + extra_server_slowdown_ * extra;
  }
  return rate;
}

void FixedDurationProgress::on_placement(const Placement& placement) { rate_ = rate_on(placement); }

double FixedDurationProgress::time_to_finish_s() const {
  if (finished_) return 0.0;
  if (rate_ <= 0) return kInf;
  return remaining_gpu_s_ / rate_;
}

double FixedDurationProgress::remaining_time_s(int gpus) const {
  if (finished_) return 0.0;
  if (gpus <= 0) return kInf;
  return remaining_gpu_s_ / std::min(gpus, request_gpus_);
}

}  // namespace dmlkit::cluster
