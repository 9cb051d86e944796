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

// Defaults that depend on the architecture (documented in each scheduler's file and docs/comm.md).
double bytescheduler_default_partition_bytes(Arch arch);
double bytescheduler_default_credit_bytes(Arch arch);

}  // namespace dmlkit::comm
