#include "core/data_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace dmlkit {

std::string installed_path(std::string_view relative) {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  namespace fs = std::filesystem;
  const fs::path candidate = fs::path(std::string(buf, static_cast<size_t>(n))).parent_path().parent_path() / relative;
  std::error_code ec;
  return fs::exists(candidate, ec) ? candidate.lexically_normal().string() : std::string();
}

std::string default_data_dir() {
  for (const char* name : {"DMLKIT_DATA_DIR", "DMLKIT_DATA"})
    if (const char* env = std::getenv(name); env != nullptr && *env != '\0') return env;
  // An installed program (make install): PREFIX/bin/dmlkit reads PREFIX/share/dmlkit/data.
  static const std::string installed = installed_path("share/dmlkit/data");
  if (!installed.empty()) return installed;
  return DMLKIT_DATA_DIR;
}

std::string data_path(std::string_view relative) {
  std::string out = default_data_dir();
  out += '/';
  out += relative;
  return out;
}

}  // namespace dmlkit
