// Entry point of the command-line program, callable in-process (tests) or from main().
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace dmlkit::app {

// Parses argv and runs the subcommand. Output goes to `out`, diagnostics to `err`. Returns the
// exit status: 0 on success, 2 on bad input or usage (one line on `err`), 3 when the environment
// failed (a full disk, an I/O error, a permission: core/error.h), 1 on internal errors.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// A dry parse: parses `args` (without the program name) as run_cli would, checks the --out folder,
// and runs the chosen command's up-front checks (Context::validate: names, knobs, files) without
// running it. Returns 0 if it would start; otherwise 2 and the one line run_cli would print (without
// the "dmlkit: " prefix) in `error`. Commands without a validate step are checked as far as
// parsing goes. With UserCode::Never (`sweep plan`), a command line that names a Python file
// (--policy-file, --algorithm-file) is checked without running the file: its FILE.py:CLASS form
// and that the file exists (python_plugin.h); the checks that need the class (its name, its knobs)
// are then left to the run.
enum class UserCode { Load, Never };
int check_cli(const std::vector<std::string>& args, std::string& error, UserCode code = UserCode::Load);

// The long option names (without dashes) of the command `words` ({"cluster", "simulate"}); false
// if there is no such command (then `options` lists the commands at the deepest level found).
bool command_options(const std::vector<std::string>& words, std::vector<std::string>& options);

}  // namespace dmlkit::app
