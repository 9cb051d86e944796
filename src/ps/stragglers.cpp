// Straggler scenarios: presets and the file reader (see stragglers.h).
#include "ps/stragglers.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/output_dir.h"

namespace dmlkit::ps {

std::vector<double> StragglerScenario::cpu_factors() const {
  std::vector<double> out;
  for (const auto& e : events)
    if (e.kind == StragglerKind::cpu && std::find(out.begin(), out.end(), e.amount) == out.end())
      out.push_back(e.amount);
  return out;
}

double StragglerScenario::cpu_factor(int server, int iteration) const {
  double f = 1;
  for (const auto& e : events)
    if (e.kind == StragglerKind::cpu && e.server == server && iteration >= e.start_iteration &&
        iteration < e.end_iteration)
      f = std::max(f, e.amount);
  return f;
}

int StragglerScenario::background_flows(int server, int iteration) const {
  int n = 0;
  for (const auto& e : events)
    if (e.kind == StragglerKind::bandwidth && e.server == server && iteration >= e.start_iteration &&
        iteration < e.end_iteration)
      n += static_cast<int>(e.amount);
  return n;
}

std::vector<std::string> straggler_presets() { return {"none", "persistent", "rotating", "burst"}; }

StragglerScenario straggler_preset(const std::string& name, int servers, int iterations) {
  StragglerScenario s;
  s.name = name;
  const int n = std::max(1, iterations);
  if (name == "none") return s;
  if (name == "persistent") {
    s.events.push_back({0, 0, n, StragglerKind::cpu, 4});
  } else if (name == "rotating") {
    const int window = std::max(10, n / 10);
    for (int w = 0; w * window < n; ++w) {
      const bool cpu = w % 2 == 0;
      s.events.push_back({w % servers, w * window, std::min(n, (w + 1) * window),
                          cpu ? StragglerKind::cpu : StragglerKind::bandwidth, cpu ? 4.0 : 8.0});
    }
  } else if (name == "burst") {
    s.events.push_back({1 % servers, static_cast<int>(0.4 * n), std::max(static_cast<int>(0.5 * n), static_cast<int>(0.4 * n) + 1),
                        StragglerKind::cpu, 8});
  } else {
    throw Error("", 0, "stragglers", "unknown preset '" + name + "' (none, persistent, rotating, burst, or a file)");
  }
  return s;
}

StragglerScenario parse_straggler_file(const std::string& text, const std::string& path, int servers) {
  StragglerScenario s;
  s.name = path;
  std::istringstream in(text);
  std::string line;
  long lineno = 0;
  bool header = false;
  const char* fields[] = {"server", "start_iteration", "end_iteration", "kind", "amount"};
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream parts(line);
    for (std::string c; std::getline(parts, c, ',');) {
      const auto a = c.find_first_not_of(" \t"), b = c.find_last_not_of(" \t");
      cells.push_back(a == std::string::npos ? "" : c.substr(a, b - a + 1));
    }
    if (!header) {
      header = true;
      if (cells.size() == 5 && cells[0] == "server") {
        for (int i = 0; i < 5; ++i)
          if (cells[i] != fields[i])
            throw Error(path, lineno, cells[i], std::string("expected column '") + fields[i] + "'");
        continue;
      }
    }
    if (cells.size() != 5)
      throw Error(path, lineno, "", "expected 5 fields (server,start_iteration,end_iteration,kind,amount), got " +
                                        std::to_string(cells.size()));
    StragglerEvent e;
    long v = 0;
    if (!parse_long(cells[0], v) || v < 0) throw Error(path, lineno, "server", "not a server index: '" + cells[0] + "'");
    if (v >= servers)
      throw Error(path, lineno, "server",
                  "no PS " + cells[0] + ": the run has " + std::to_string(servers) + " servers (0.." +
                      std::to_string(servers - 1) + ")");
    e.server = static_cast<int>(v);
    if (!parse_long(cells[1], v) || v < 0 || v > 1000000)
      throw Error(path, lineno, "start_iteration", "not an iteration: '" + cells[1] + "'");
    e.start_iteration = static_cast<int>(v);
    if (!parse_long(cells[2], v) || v <= e.start_iteration || v > 1000000)
      throw Error(path, lineno, "end_iteration", "must be an iteration after start_iteration: '" + cells[2] + "'");
    e.end_iteration = static_cast<int>(v);
    if (cells[3] == "cpu")
      e.kind = StragglerKind::cpu;
    else if (cells[3] == "bandwidth")
      e.kind = StragglerKind::bandwidth;
    else
      throw Error(path, lineno, "kind", "must be cpu or bandwidth, got '" + cells[3] + "'");
    double a = 0;
    if (!parse_double(cells[4], a) || !std::isfinite(a))
      throw Error(path, lineno, "amount", "not a number: '" + cells[4] + "'");
    if (e.kind == StragglerKind::cpu && !(a >= 1 && a <= 1000))
      throw Error(path, lineno, "amount", "a cpu slowdown must be between 1 and 1000, got '" + cells[4] + "'");
    if (e.kind == StragglerKind::bandwidth && !(a >= 1 && a <= 1024 && a == std::floor(a)))
      throw Error(path, lineno, "amount", "background flows must be a whole number in 1..1024, got '" + cells[4] + "'");
    e.amount = a;
    s.events.push_back(e);
  }
  return s;
}

StragglerScenario load_stragglers(const std::string& name_or_path, int servers, int iterations) {
  const auto presets = straggler_presets();
  if (std::find(presets.begin(), presets.end(), name_or_path) != presets.end())
    return straggler_preset(name_or_path, servers, iterations);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_path, ec))
    throw Error("", 0, "stragglers",
                "'" + name_or_path + "' is neither a preset (none, persistent, rotating, burst) nor a file" +
                    did_you_mean(name_or_path, presets));
  return parse_straggler_file(read_text_file(name_or_path), name_or_path, servers);
}

}  // namespace dmlkit::ps
