// The one way dmlkit starts other processes. run_process runs one program with an argument vector
// (never through a shell), an extra environment, stdin from /dev/null and a wall-clock timeout
// after which the whole process group is killed (the live mode's Slurm commands, tests that run
// the dmlkit binary or a browser). run_in_child runs a function in a forked copy of this process
// and returns the bytes it produced (a SimGrid simulation, which keeps global state, runs once per
// process).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dmlkit {

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

// Forks; the child runs `work` and sends back the string it returns, then exits. Returns that
// string. Throws std::runtime_error if the child cannot be started or dies before it is done
// (`work` itself must not throw: catch inside and encode errors in the string).
std::string run_in_child(const std::function<std::string()>& work);

// run_in_child for work that may throw: the child returns `work`'s text, or the message of the
// dmlkit::Error / std::exception it threw, and the parent throws the same kind again (Error for
// bad input, std::runtime_error for an internal error).
std::string run_in_child_rethrowing(const std::function<std::string()>& work);

}  // namespace dmlkit
