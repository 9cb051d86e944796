// How --help states the default of --data-dir and --experiments-dir (issue 20): in words, the same
// for every command, never as a path of the machine the program was built or runs on.
#pragma once

namespace dmlkit::app {

inline constexpr const char* kDataDirDefault =
    "default: $DMLKIT_DATA_DIR, else PREFIX/share/dmlkit/data of an installed dmlkit, else the source tree's data/";
inline constexpr const char* kExperimentsDirDefault =
    "default: $DMLKIT_EXPERIMENTS_DIR, else experiments/ beside the data folder";

}  // namespace dmlkit::app
