// Bash completion and a man page generated from the CLI definitions themselves (issue 20), so
// they cannot drift from the program: `dmlkit generate bash-completion` and `dmlkit generate man`;
// the build writes both into build/share/ and `make install` installs them.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace dmlkit::app {

// A bash completion script for `dmlkit`: subcommands and options per command path.
std::string bash_completion(const CLI::App& app);
// dmlkit(1) in roff (man -l): every command with its description and options (with defaults).
std::string man_page(const CLI::App& app, const std::string& version);

}  // namespace dmlkit::app
