// Runs one program as a subprocess with an argument vector (never through a shell), an extra
// environment, and a wall-clock timeout after which the whole process group is killed.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace dmlkit::live {

struct ProcessResult {
  int exit_code = -1;      // exit status; -1 if killed by a signal or not started
  bool timed_out = false;  // killed because the timeout passed
  bool started = false;    // false if the program could not be executed
  std::string out;         // stdout
  std::string err;         // stderr
  bool ok() const { return started && !timed_out && exit_code == 0; }
};

// Runs argv[0] (looked up in PATH) with argv, the current environment plus `env` (NAME, value),
// stdin from /dev/null, capturing stdout and stderr. Never throws for a failing program.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s);

}  // namespace dmlkit::live
