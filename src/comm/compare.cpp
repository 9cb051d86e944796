// Scheduler comparison: speed-ups, timelines, Gantt chart and records (see compare.h).
#include "comm/compare.h"

#include <algorithm>
#include <cmath>

namespace dmlkit::comm {

void add_speedups(std::vector<SchedulerRun>& runs, double lb) {
  const SchedulerRun* fifo = nullptr;
  for (const auto& r : runs)
    if (r.r.scheduler == "fifo") fifo = &r;
  for (auto& r : runs) {
    r.speedup_over_fifo = fifo ? fifo->r.iteration_mean_s / r.r.iteration_mean_s : std::nan("");
    r.distance_to_bound = lb > 0 ? std::max(0.0, r.r.iteration_mean_s / lb - 1) : 0;  // rounding below 0
  }
}

void add_scheduler_records(Results& results, const std::vector<SchedulerRun>& runs, uint64_t seed) {
  for (const auto& row : runs) {
    ResultRecord& rec = results.add(row.r.scheduler, seed);
    auto& m = rec.metrics;
    m["iteration_mean_s"] = row.r.iteration_mean_s;
    m["speedup_over_fifo"] =
        std::isfinite(row.speedup_over_fifo) ? nlohmann::ordered_json(row.speedup_over_fifo) : nlohmann::ordered_json();
    m["distance_to_lower_bound"] = row.distance_to_bound;
    m["overlap"] = row.r.overlap;
    m["comm_busy_s"] = row.r.comm_busy_s;
    m["max_in_flight_bytes"] = row.r.max_in_flight_bytes;
    m["transfers"] = row.r.transfers;
    rec.detail["iteration_s"] = row.r.iteration_s;
    rec.files["timeline_csv"] = "timeline-" + row.r.scheduler + ".csv";
  }
}

TextTable timeline_table(const IterationResult& r) {
  TextTable t({"row", "resource", "start_s", "end_s", "what"});
  for (const auto& s : r.spans)
    t.add_row({std::to_string(s.row), r.rows[s.row], fixed(s.start_s, 6), fixed(s.end_s, 6), s.label});
  return t;
}

void add_iteration_trace(TraceEvents& trace, int pid, const IterationResult& r) {
  trace.name_process(pid, r.scheduler);
  for (size_t row = 0; row < r.rows.size(); ++row) trace.name_thread(pid, static_cast<int>(row), r.rows[row]);
  for (const auto& s : r.spans)
    trace.add(pid, s.row, s.label, s.row == 0 ? "compute" : "transfer", s.start_s, s.end_s);
}

GanttChart iteration_gantt(const IterationResult& r) {
  GanttChart c;
  c.title = "Timeline of one steady-state iteration: " + r.scheduler;
  c.x_title = "time in the iteration (ms)";
  c.y_title = "resource";
  c.x_min = 0;
  c.x_max = r.iteration_mean_s * 1e3;
  c.rows = r.rows;
  c.bars.reserve(r.spans.size());
  for (const auto& s : r.spans) {
    // Row 0 is the GPU: compute spans are named "F layer" (forward) or "B layer" (backward).
    const char* category = s.row != 0 ? "transfer" : s.label.rfind("B ", 0) == 0 ? "backward" : "forward";
    c.bars.push_back({static_cast<size_t>(s.row), s.start_s * 1e3, s.end_s * 1e3, category, s.label});
  }
  return c;
}

}  // namespace dmlkit::comm
