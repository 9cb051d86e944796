// Entry point of the command-line program, callable in-process (tests) or from main().
#pragma once
#include <iosfwd>

namespace dmlkit::app {

// Parses argv and runs the subcommand. Output goes to `out`, diagnostics to `err`. Returns the
// exit status: 0 on success, 2 on bad input or usage (one line on `err`), 1 on internal errors.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace dmlkit::app
