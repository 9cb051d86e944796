#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>

namespace dmlkit {

std::string program_path() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string installed_path(std::string_view relative) {
  const std::string program = program_path();
  if (program.empty()) return {};
  namespace fs = std::filesystem;
  const fs::path candidate = fs::path(program).parent_path().parent_path() / relative;
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
