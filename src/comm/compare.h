// Comparing communication schedulers on one workload and network: speed-ups over fifo, distance
// to the lower bound, the per-iteration timeline, a Gantt chart of it, and the records of
// core/results.h (docs/results-schema.md, "comm").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "comm/iteration_sim.h"
#include "core/html_report.h"
#include "core/trace_events.h"
#include "core/results.h"
#include "core/table.h"

namespace dmlkit::comm {

struct SchedulerRun {
  IterationResult r;
  double speedup_over_fifo = 0;  // fifo's iteration time / this one's; NaN when fifo did not run
  double distance_to_bound = 0;  // iteration / lower bound - 1 (never below 0)
};

// Fills speedup_over_fifo and distance_to_bound of every run.
void add_speedups(std::vector<SchedulerRun>& runs, double lower_bound_s);

// Appends one record per run (name = scheduler, the given seed): iteration_mean_s,
// speedup_over_fifo (null without fifo), distance_to_lower_bound, overlap, comm_busy_s,
// max_in_flight_bytes, transfers; detail iteration_s; files timeline_csv.
void add_scheduler_records(Results& results, const std::vector<SchedulerRun>& runs, uint64_t seed);

// Every span of one steady-state iteration: row, resource, start_s, end_s, what.
TextTable timeline_table(const IterationResult& r);

// A Gantt chart of the steady-state iteration: one row per resource (GPU, then the network rows),
// one bar per compute span (forward / backward) or transfer, named after its layer or tensor.
GanttChart iteration_gantt(const IterationResult& r);
// The same steady-state iteration as trace events (core/trace_events.h): process `pid` named after
// the scheduler, one thread per resource (GPU, then the network rows), one event per span.
void add_iteration_trace(TraceEvents& trace, int pid, const IterationResult& r);

}  // namespace dmlkit::comm
