#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>

namespace dmlkit {

std::string program_path() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

namespace {

std::string& host_prefix() {
  static std::string prefix;
  return prefix;
}

}  // namespace

void set_installed_prefix(std::string prefix) { host_prefix() = std::move(prefix); }

std::string installed_path(std::string_view relative) {
  namespace fs = std::filesystem;
  fs::path prefix = host_prefix();
  if (prefix.empty()) {
    const std::string program = program_path();
    if (program.empty()) return {};
    prefix = fs::path(program).parent_path().parent_path();
  }
  const fs::path candidate = prefix / relative;
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
