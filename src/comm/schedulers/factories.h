// Factories of the communication schedulers, one per file in this folder (registry: scheduler.cpp).
#pragma once
#include <memory>

#include "comm/scheduler.h"

namespace dmlkit::comm {

std::unique_ptr<CommScheduler> make_fifo(const SchedulerOptions& o, Arch arch);
std::unique_ptr<CommScheduler> make_p3(const SchedulerOptions& o, Arch arch);
std::unique_ptr<CommScheduler> make_tictac(const SchedulerOptions& o, Arch arch);
std::unique_ptr<CommScheduler> make_bytescheduler(const SchedulerOptions& o, Arch arch);
std::unique_ptr<CommScheduler> make_horovod(const SchedulerOptions& o, Arch arch);
std::unique_ptr<CommScheduler> make_ddp(const SchedulerOptions& o, Arch arch);
std::unique_ptr<CommScheduler> make_pace(const SchedulerOptions& o, Arch arch);

// Defaults (one place: the factories and resolved_scheduler_knobs use them).
inline constexpr double kP3DefaultSliceBytes = 200000.0;                // 0.2 MB
inline constexpr double kHorovodDefaultFusionBytes = 64.0 * 1024 * 1024;  // 64 MiB
inline constexpr double kHorovodDefaultCycleS = 5e-3;                   // 5 ms
// Defaults that depend on the architecture (documented in each scheduler's file and docs/comm.md).
double bytescheduler_default_partition_bytes(Arch arch);
double bytescheduler_default_credit_bytes(Arch arch);
// PACE's preemption unit when none is given: the candidate (1, 2, 4, ..., 64 MiB) the oracle likes
// best for the unfused schedule.
double pace_default_partition_bytes(const TrainingWorkload& w, const NetworkConfig& net);

}  // namespace dmlkit::comm
