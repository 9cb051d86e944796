// Time-varying PS stragglers of a training run (issue 16): which server, from which iteration to
// which, what kind and how much.
//   cpu        computation interference: the server's CPU (aggregation) runs `amount` times slower
//              (SimGrid pstate of the server host; needs the server CPU simulated);
//   bandwidth  bandwidth contention: `amount` background flows into and as many out of the
//              server's NIC (real SimGrid flows, sharing the NIC max-min fairly with training).
// The third kind, imbalance from the assignment itself, is what the policies differ in.
// File format (CSV, '#' comments): server,start_iteration,end_iteration,kind,amount -- the event
// holds for iterations in [start, end). Presets (for N iterations, M servers) [A]:
//   none        no straggler;
//   persistent  server 0, cpu x4, the whole run;
//   rotating    windows of max(10, N/10) iterations; window w slows server w mod M, even windows
//               cpu x4, odd windows bandwidth with 8 background flows;
//   burst       server 1 mod M, cpu x8, iterations [0.4 N, 0.5 N).
#pragma once
#include <string>
#include <vector>

namespace dmlkit::ps {

enum class StragglerKind { cpu, bandwidth };

struct StragglerEvent {
  int server = 0;
  int start_iteration = 0;
  int end_iteration = 0;  // exclusive
  StragglerKind kind = StragglerKind::cpu;
  double amount = 1;  // cpu: slowdown factor (> 1); bandwidth: background flows (integer >= 1)
};

struct StragglerScenario {
  std::string name;  // preset name or file path
  std::vector<StragglerEvent> events;
  std::vector<double> cpu_factors() const;  // distinct cpu slowdowns
  // The state of server j at an iteration: cpu factor (max of the active events, 1 if none) and
  // background flows (sum).
  double cpu_factor(int server, int iteration) const;
  int background_flows(int server, int iteration) const;
};

std::vector<std::string> straggler_presets();  // none, persistent, rotating, burst
StragglerScenario straggler_preset(const std::string& name, int servers, int iterations);
// Parses a scenario file's text; Error(path, line, field) on a bad line or a server >= servers.
StragglerScenario parse_straggler_file(const std::string& text, const std::string& path, int servers);
// A preset name, else a file path; an unknown name that is no file is an Error on "stragglers".
StragglerScenario load_stragglers(const std::string& name_or_path, int servers, int iterations);

}  // namespace dmlkit::ps
