#include "core/data_dir.h"

#include <cstdlib>

namespace dmlkit {

std::string default_data_dir() {
  if (const char* env = std::getenv("DMLKIT_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return DMLKIT_DATA_DIR;
}

std::string data_path(std::string_view relative) {
  std::string out = default_data_dir();
  out += '/';
  out += relative;
  return out;
}

}  // namespace dmlkit
