// The one place that says where bundled data lives: $DMLKIT_DATA_DIR (or $DMLKIT_DATA) if set;
// else, for an installed program (`make install`), PREFIX/share/dmlkit/data beside PREFIX/bin (or
// beside the installed Python module, set_installed_prefix);
// else the source tree's data/ folder (compiled into core/data_dir.cpp only), so a build run from
// its checkout finds its workloads, profiles, model graphs, graphs and image sets. Every module
// asks here.
#pragma once
#include <string>
#include <string_view>

namespace dmlkit {

std::string default_data_dir();
// The path of the running program (/proc/self/exe); "" if it cannot be read.
std::string program_path();
// PREFIX/<relative> for the running program PREFIX/bin/<name> (from /proc/self/exe) -- or for the
// prefix set_installed_prefix() gave --, if that path exists; "" otherwise (a build tree, or a
// program not installed in a PREFIX/bin layout).
std::string installed_path(std::string_view relative);
// For the toolkit running inside another program (the Python module, installed under
// PREFIX/lib/python3.X/dist-packages, runs in /usr/bin/python3): the PREFIX it was installed in,
// which the host program's path does not tell. Call before the first installed_path().
void set_installed_prefix(std::string prefix);
// default_data_dir() + "/" + relative (e.g. "model-graphs", "app-profiles").
std::string data_path(std::string_view relative);

}  // namespace dmlkit
