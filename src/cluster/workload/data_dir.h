// Where the bundled data lives: $DMLKIT_DATA_DIR if set, else the source tree's data/ folder
// (compiled in), so a build run from its checkout finds its workloads and profiles.
#pragma once
#include <string>

namespace dmlkit::cluster {

std::string default_data_dir();

}  // namespace dmlkit::cluster
