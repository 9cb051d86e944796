#include "core/provenance.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <mutex>

#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit {
namespace {

struct Log {
  std::mutex mutex;
  bool started = false;
  std::vector<std::string> argv;
  std::vector<InputFile> inputs;
};

Log& log() {
  static Log l;
  return l;
}

// "data/<rel>" for a file under the bundled data folder, so no checkout path is recorded.
std::string display_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  const fs::path data = fs::weakly_canonical(fs::absolute(default_data_dir(), ec), ec);
  if (!ec) {
    const fs::path rel = file.lexically_relative(data);
    if (!rel.empty() && *rel.begin() != "..") return "data/" + rel.generic_string();
  }
  return path;
}

bool plain_word(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("-_./:,=+@%").find(c) != std::string_view::npos))
      return false;
  return true;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

void begin_invocation(const std::vector<std::string>& argv) {
  Log& l = log();
  std::lock_guard lock(l.mutex);
  l.started = true;
  l.argv = argv;
  if (!l.argv.empty()) l.argv.front() = "dmlkit";
  l.inputs.clear();
}

void note_input_file(const std::string& path, std::string_view contents) {
  Log& l = log();
  {
    std::lock_guard lock(l.mutex);
    if (!l.started) return;
  }
  InputFile f{display_path(path), contents.size(), sha256_hex(contents)};
  std::lock_guard lock(l.mutex);
  for (const auto& g : l.inputs)
    if (g.path == f.path) return;
  l.inputs.push_back(std::move(f));
}

std::string invocation_command_line() {
  Log& l = log();
  std::lock_guard lock(l.mutex);
  return shell_command_line(l.argv);
}

std::string shell_command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    if (plain_word(a)) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

std::vector<InputFile> invocation_inputs() {
  Log& l = log();
  std::lock_guard lock(l.mutex);
  return l.inputs;
}

nlohmann::ordered_json invocation_json() {
  std::vector<std::string> argv;
  {
    Log& l = log();
    std::lock_guard lock(l.mutex);
    if (!l.started) return nullptr;
    argv = l.argv;
  }
  nlohmann::ordered_json j;
  j["argv"] = argv;
  j["command_line"] = invocation_command_line();
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  // Sorted by path: files read on parallel_for threads arrive in no fixed order.
  auto inputs = invocation_inputs();
  std::sort(inputs.begin(), inputs.end(), [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
  for (const auto& f : inputs) files.push_back({{"path", f.path}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  j["input_files"] = std::move(files);
  return j;
}

void check_invocation_json(const nlohmann::json& inv, const std::string& path) {
  if (!inv.is_object()) throw Error(path, 0, "invocation", "not an object");
  if (inv.contains("command_line") && !inv["command_line"].is_string())
    throw Error(path, 0, "invocation.command_line", "not a string");
  if (!inv.contains("input_files")) return;
  const nlohmann::json& files = inv["input_files"];
  if (!files.is_array()) throw Error(path, 0, "invocation.input_files", "not an array");
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string where = "invocation.input_files[" + std::to_string(i) + "]";
    const nlohmann::json& f = files[i];
    if (!f.is_object()) throw Error(path, 0, where, "not an object");
    for (const char* key : {"path", "sha256"})
      if (!f.contains(key) || !f[key].is_string()) throw Error(path, 0, where + "." + key, "missing or not a string");
    if (!f.contains("bytes") || !f["bytes"].is_number_unsigned())
      throw Error(path, 0, where + ".bytes", "missing or not a byte count");
  }
}

}  // namespace dmlkit
