// Timelines as Chrome/Perfetto traces (the Trace Event Format's JSON object form: "traceEvents"
// with complete events "ph":"X", timestamps in microseconds, and "M" metadata events naming
// processes and threads), so a run opens in ui.perfetto.dev or chrome://tracing (issue 20).
// comm writes one per run (each scheduler a process, each resource a thread); any family with a
// timeline adds events the same way.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dmlkit {

class TraceEvents {
 public:
  void name_process(int pid, const std::string& name);
  void name_thread(int pid, int tid, const std::string& name);
  // A complete event from start_s to end_s (seconds; written in microseconds).
  void add(int pid, int tid, const std::string& name, const std::string& category, double start_s, double end_s,
           nlohmann::ordered_json args = nlohmann::ordered_json::object());
  size_t size() const { return events_.size(); }
  // {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {"tool": "dmlkit", ...}} + "\n".
  std::string json_text() const;

 private:
  std::vector<nlohmann::ordered_json> events_;
};

}  // namespace dmlkit
