#include "core/trace_events.h"

#include <cmath>

namespace dmlkit {

void TraceEvents::name_process(int pid, const std::string& name) {
  events_.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
}

void TraceEvents::name_thread(int pid, int tid, const std::string& name) {
  events_.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  // Perfetto orders threads by this index: rows stay in the order the family gives them.
  events_.push_back(
      {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
}

void TraceEvents::add(int pid, int tid, const std::string& name, const std::string& category, double start_s,
                      double end_s, nlohmann::ordered_json args) {
  // Microseconds with nanosecond resolution (three decimals) keep short transfers visible.
  const auto us = [](double s) { return std::round(s * 1e9) / 1e3; };
  nlohmann::ordered_json e{{"name", name}, {"cat", category}, {"ph", "X"}, {"ts", us(start_s)},
                           {"dur", us(std::max(0.0, end_s - start_s))}, {"pid", pid}, {"tid", tid}};
  if (!args.empty()) e["args"] = std::move(args);
  events_.push_back(std::move(e));
}

std::string TraceEvents::json_text() const {
  nlohmann::ordered_json j;
  j["traceEvents"] = events_;
  j["displayTimeUnit"] = "ms";
  j["otherData"] = {{"tool", "dmlkit"}, {"version", DMLKIT_VERSION}};
  return j.dump() + "\n";
}

}  // namespace dmlkit
