#include "core/output_dir.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unistd.h>

#include "core/error.h"

namespace fs = std::filesystem;

namespace dmlkit {

OutputDir::OutputDir(std::string final_path) : final_path_(std::move(final_path)) {
  if (final_path_.empty()) throw Error("--out: empty output folder path");
  fs::path final(final_path_);
  fs::path parent = final.parent_path();
  std::error_code ec;
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw Error(parent.string(), 0, "", "cannot create folder: " + ec.message());
  std::string staging_name = ".";  // built piecewise: GCC 12 warns falsely on `"." + string&&`
  staging_name += final.filename().string();
  staging_name += ".tmp-";
  staging_name += std::to_string(::getpid());
  fs::path staging = parent / staging_name;
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) throw Error(staging.string(), 0, "", "cannot create folder: " + ec.message());
  staging_path_ = staging.string();
}

OutputDir::~OutputDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_path_, ec);
  }
}

void OutputDir::write(const std::string& name, const std::string& content) {
  fs::path p = fs::path(staging_path_) / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(p.string(), 0, "", "cannot write file");
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw Error(p.string(), 0, "", "write failed");
}

const std::string& OutputDir::commit() {
  std::error_code ec;
  if (fs::exists(final_path_)) {
    if (!fs::is_directory(final_path_)) throw Error(final_path_, 0, "", "exists and is not a folder");
    fs::remove_all(final_path_, ec);
    if (ec) throw Error(final_path_, 0, "", "cannot replace folder: " + ec.message());
  }
  fs::rename(staging_path_, final_path_, ec);
  if (ec) throw Error(final_path_, 0, "", "cannot move output into place: " + ec.message());
  committed_ = true;
  return final_path_;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path, 0, "", "cannot write file");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) throw Error(path, 0, "", "write failed");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error(path, 0, "", "cannot move file into place");
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, 0, "", "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace dmlkit
