// Test helper: a file (or folder of files) as a spreadsheet program exports it, with a UTF-8
// byte-order mark and CRLF line ends, for the tests that every reader reads it as the plain file.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dmlkit::testing {

inline std::string as_spreadsheet_text(const std::string& text) {
  std::string out = "\xEF\xBB\xBF";
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// Copies `from` (a file, or a folder: every file in it, recursively) to `to`, converted.
inline void copy_as_spreadsheet(const std::filesystem::path& from, const std::filesystem::path& to) {
  namespace fs = std::filesystem;
  auto one = [](const fs::path& a, const fs::path& b) {
    std::ifstream in(a, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    fs::create_directories(b.parent_path());
    std::ofstream(b, std::ios::binary) << as_spreadsheet_text(ss.str());
  };
  if (!fs::is_directory(from)) return one(from, to);
  for (const auto& e : fs::recursive_directory_iterator(from))
    if (e.is_regular_file()) one(e.path(), to / fs::relative(e.path(), from));
}

}  // namespace dmlkit::testing
