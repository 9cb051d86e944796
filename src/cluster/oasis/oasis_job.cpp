// Utilities and validation of OASiS-model jobs (see oasis_job.h).
#include "cluster/oasis/oasis_job.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace dmlkit::cluster::oasis {

const char* resource_name(int r) {
  static const char* names[kNumResources] = {"gpu", "cpu", "mem_gb", "net_gbps"};
  return (r >= 0 && r < kNumResources) ? names[r] : "?";
}

double Utility::value(double d) const {
  switch (kind) {
    case UtilityKind::Sigmoid: {
      const double z = decay * (d - target_slots);
      if (z > 700) return 0;
      return priority / (1.0 + std::exp(z));
    }
    case UtilityKind::Step:
      return d <= target_slots ? priority : 0;
    case UtilityKind::Linear:
      return priority * std::max(0.0, 1.0 - d / (2.0 * target_slots));
  }
  return 0;
}

UtilityKind parse_utility_kind(const std::string& name) {
  if (name == "sigmoid") return UtilityKind::Sigmoid;
  if (name == "step") return UtilityKind::Step;
  if (name == "linear") return UtilityKind::Linear;
  throw Error("unknown utility '" + name + "' (known: sigmoid, step, linear)");
}

const char* to_string(UtilityKind kind) {
  switch (kind) {
    case UtilityKind::Sigmoid: return "sigmoid";
    case UtilityKind::Step: return "step";
    case UtilityKind::Linear: return "linear";
  }
  return "?";
}

void check_job(const OasisJob& job, int horizon_slots, const std::string& where, long line) {
  auto fail = [&](const std::string& field, const std::string& msg) { throw Error(where, line, field, msg); };
  for (int r = 0; r < kNumResources; ++r) {
    if (!std::isfinite(job.worker_demand[r]) || job.worker_demand[r] < 0)
      fail(std::string("worker_") + resource_name(r), "demand must be a finite number >= 0");
    if (!std::isfinite(job.ps_demand[r]) || job.ps_demand[r] < 0)
      fail(std::string("ps_") + resource_name(r), "demand must be a finite number >= 0");
  }
  if (job.work_worker_slots <= 0) fail("work_worker_slots", "a job needs work > 0");
  if (job.max_workers <= 0) fail("chunks", "a job needs at least one data chunk (worker)");
  if (job.workers_per_ps <= 0) fail("workers_per_ps", "must be >= 1");
  if (job.arrival_slot < 0) fail("arrival_slot", "must be >= 0");
  const Utility& u = job.utility;
  if (!std::isfinite(u.priority) || u.priority < 0) fail("priority", "must be a finite number >= 0");
  if (!std::isfinite(u.target_slots) || u.target_slots <= 0) fail("target_slots", "must be > 0");
  if (!std::isfinite(u.decay)) fail("decay", "must be a finite number");
  // Non-increasing on every duration the horizon allows (the framework needs f_i non-increasing).
  double prev = u.value(1);
  for (int d = 2; d <= std::max(2, horizon_slots); ++d) {
    const double v = u.value(d);
    if (v > prev + 1e-12 * std::max(1.0, std::abs(prev)))
      fail("utility", "increases with the completion time (f(" + std::to_string(d - 1) + ") < f(" +
                          std::to_string(d) + ")); OASiS needs a non-increasing utility");
    prev = v;
  }
}

}  // namespace dmlkit::cluster::oasis
