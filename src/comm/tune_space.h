// What `comm tune` searches: the knobs of a scheduler as tuning dimensions, and a point of that
// space applied to the scheduler options.
#pragma once
#include <string>
#include <vector>

#include "comm/scheduler.h"
#include "comm/tuner.h"

namespace dmlkit::comm {

// Search boxes [A]: ByteScheduler's tuner searches credit in 1-16 M parameters (PS) or 4-64 M
// (all-reduce) and partition in 2-32 M parameters (spec 1.6); we search one box covering both,
// in MB: partition 1-128 MB, credit 4-256 MB. Horovod: threshold 1-256 MiB, cycle 0.5-20 ms.
// Throws Error for a scheduler without a tuning space.
std::vector<TuneDimension> tune_dimensions(const std::string& scheduler);

// `options` with the knobs at point x (one value per dimension of tune_dimensions(scheduler)).
SchedulerOptions apply_tune_point(const std::string& scheduler, SchedulerOptions options, const std::vector<double>& x);

}  // namespace dmlkit::comm
