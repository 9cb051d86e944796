#include "cluster/workload/data_dir.h"

#include <cstdlib>

namespace dmlkit::cluster {

std::string default_data_dir() {
  if (const char* env = std::getenv("DMLKIT_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return DMLKIT_DATA_DIR;
}

}  // namespace dmlkit::cluster
