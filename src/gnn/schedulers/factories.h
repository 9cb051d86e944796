// Entries of the GNN schedulers (one file each in this folder), listed in ../registry.cpp.
#pragma once
#include "gnn/scheduler.h"

namespace dmlkit::gnn {
SchedulerEntry fifo_fair_entry();
SchedulerEntry online_entry();
}  // namespace dmlkit::gnn
