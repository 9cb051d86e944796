// The knob values each communication scheduler runs with, for results.json's
// inputs.effective_knobs (issue 20): the option as given, else the scheduler's default resolved for
// this architecture, network and model (bytescheduler's 4 or 32 MB partition, p3's credit of one
// slice per server, the partition PACE's oracle picks), never the description `comm schedulers -v`
// shows. Keys are "<scheduler>.<option>" ("bytescheduler.partition-mb"), values as the option would
// be written (MB for --partition-mb and --credit-mb, MiB for --fusion-mb, ...).
#pragma once
#include <string>
#include <vector>

#include "comm/scheduler.h"
#include "core/knobs.h"

namespace dmlkit::comm {

KnobValues resolved_scheduler_knobs(const std::vector<std::string>& schedulers, const SchedulerOptions& o, Arch arch,
                                    const TrainingWorkload& w, const NetworkConfig& net);

}  // namespace dmlkit::comm
