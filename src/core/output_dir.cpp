#include "core/output_dir.h"

#include "core/provenance.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>
#include <unistd.h>

#include "core/error.h"

namespace fs = std::filesystem;

namespace dmlkit {

namespace {

const char* const kMarkerHeader =
    "# dmlkit output folder: dmlkit replaces it only while it holds nothing but the files below\n";

// Absolute, with symbolic links of the existing part resolved and "." / ".." folded.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  fs::path c = fs::weakly_canonical(abs, ec);
  if (ec) c = abs.lexically_normal();
  // weakly_canonical keeps a trailing separator ("dir/" -> "dir/"): drop it for comparisons.
  if (c.has_relative_path() && c.filename().empty()) c = c.parent_path();
  return c;
}

// True if `p` is `dir` or lies below it.
bool within(const fs::path& p, const fs::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) { throw Error("--out " + path + ": " + why); }

// The file names a marker lists (empty if `marker` is missing or unreadable).
std::vector<std::string> marker_files(const fs::path& marker) {
  std::vector<std::string> names;
  std::ifstream in(marker, std::ios::binary);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] != '#') names.push_back(line);
  }
  return names;
}

// The files a previous dmlkit output at `dir` consists of (its listed files that exist, and the
// marker); refuses unless `dir` holds nothing else. An empty folder gives an empty list.
std::vector<fs::path> replaceable_contents(const std::string& path, const fs::path& dir) {
  std::error_code ec;
  std::vector<std::string> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path().filename().string());
  if (ec) refuse(path, "cannot read folder: " + ec.message());
  std::vector<fs::path> out;
  if (entries.empty()) return out;
  const fs::path marker = dir / kOutputMarker;
  if (!fs::is_regular_file(fs::symlink_status(marker)))
    refuse(path, "folder is not empty and is not a dmlkit output (no " + std::string(kOutputMarker) +
                     " file); dmlkit deletes nothing it did not write: choose a new or empty folder");
  const std::vector<std::string> listed = marker_files(marker);
  std::sort(entries.begin(), entries.end());
  for (const auto& e : entries) {
    if (e == kOutputMarker) continue;
    const bool known = std::find(listed.begin(), listed.end(), e) != listed.end();
    if (!known || !fs::is_regular_file(fs::symlink_status(dir / e)))
      refuse(path, "holds '" + e + "', which dmlkit did not write; not replacing the folder (move '" + e +
                       "' away or choose another folder)");
    out.push_back(dir / e);
  }
  out.push_back(marker);
  return out;
}

}  // namespace

void check_output_target(const std::string& path, const std::vector<std::string>& input_paths) {
  if (path.empty()) throw Error("--out: empty output folder path");
  const fs::path target = resolved(path);
  if (target == target.root_path() || !target.has_relative_path()) refuse(path, "is the root folder");
  std::error_code ec;
  const fs::path cwd = resolved(fs::current_path(ec));
  if (!ec && within(cwd, target)) refuse(path, target == cwd ? "is the working folder" : "holds the working folder");
  for (const auto& input : input_paths) {
    if (input.empty()) continue;
    if (within(resolved(input), target)) refuse(path, "holds the input '" + input + "'");
  }
  const auto st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st)) return;
  if (fs::is_symlink(st)) refuse(path, "is a symbolic link; give the folder it points to");
  if (!fs::is_directory(st)) refuse(path, "exists and is not a folder");
  replaceable_contents(path, path);
}

OutputDir::OutputDir(std::string final_path, std::vector<std::string> input_paths)
    : final_path_(std::move(final_path)), input_paths_(std::move(input_paths)) {
  check_output_target(final_path_, input_paths_);
  fs::path final(final_path_);
  if (final.filename().empty()) final = final.parent_path();  // "dir/" -> "dir"
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
  write_streamed(name,
                 [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

void OutputDir::write_streamed(const std::string& name, const std::function<void(std::ostream&)>& fill) {
  if (name.empty() || name.find('/') != std::string::npos || name == kOutputMarker || name == "." || name == "..")
    throw Error(name, 0, "", "not a plain output file name");
  fs::path p = fs::path(staging_path_) / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(p.string(), 0, "", "cannot write file");
  // A failed file is removed, so the folder never holds a file its marker does not list.
  auto drop = [&] {
    out.close();
    std::error_code ec;
    fs::remove(p, ec);
  };
  try {
    fill(out);
  } catch (...) {
    drop();
    throw;
  }
  out.close();
  if (!out) {
    drop();
    throw Error(p.string(), 0, "", "write failed");
  }
  if (std::find(written_.begin(), written_.end(), name) == written_.end()) written_.push_back(name);
}

std::string OutputDir::staged_path(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == kOutputMarker || name == "." || name == "..")
    throw Error(name, 0, "", "not a plain output file name");
  if (std::find(written_.begin(), written_.end(), name) == written_.end()) written_.push_back(name);
  return (fs::path(staging_path_) / name).string();
}

const std::string& OutputDir::commit() {
  // Again: the folder may have changed while the run worked.
  check_output_target(final_path_, input_paths_);
  for (const auto& n : written_)
    if (!fs::exists(fs::path(staging_path_) / n)) throw Error((fs::path(staging_path_) / n).string(), 0, "", "output file was not written");
  std::vector<std::string> names = written_;
  std::sort(names.begin(), names.end());
  std::string marker = kMarkerHeader;
  for (const auto& n : names) marker += n + "\n";
  const fs::path staging(staging_path_);
  {
    std::ofstream m(staging / kOutputMarker, std::ios::binary | std::ios::trunc);
    m << marker;
    if (!m) throw Error((staging / kOutputMarker).string(), 0, "", "cannot write file");
  }
  std::error_code ec;

  fs::path final(final_path_);
  if (final.filename().empty()) final = final.parent_path();
  std::vector<fs::path> old_files;
  fs::path old;  // the previous output, moved aside until the new one is in place
  if (fs::exists(fs::symlink_status(final))) {
    old_files = replaceable_contents(final_path_, final);
    if (old_files.empty()) {
      fs::remove(final, ec);  // an empty folder
      if (ec) throw Error(final_path_, 0, "", "cannot replace folder: " + ec.message());
    } else {
      std::string old_name = ".";  // built piecewise: GCC 12 warns falsely on `"." + string&&`
      old_name += final.filename().string();
      old_name += ".old-";
      old_name += std::to_string(::getpid());
      old = final.parent_path() / old_name;
      fs::rename(final, old, ec);
      if (ec) throw Error(final_path_, 0, "", "cannot replace folder: " + ec.message());
    }
  }
  fs::rename(staging, final, ec);
  if (ec) {
    std::error_code ignored;
    if (!old.empty()) fs::rename(old, final, ignored);
    throw Error(final_path_, 0, "", "cannot move output into place: " + ec.message());
  }
  committed_ = true;
  if (!old.empty()) {  // delete exactly the files of the previous output, nothing else
    std::error_code ignored;
    for (const auto& f : old_files) fs::remove(old / f.filename(), ignored);
    fs::remove(old, ignored);
  }
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
  std::string text = ss.str();
  note_input_file(path, text);  // core/provenance.h: results.json lists what a run read
  return text;
}

void normalise_text(std::string& text) {
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  if (text.find('\r') == std::string::npos) return;
  size_t w = 0;
  for (size_t r = 0; r < text.size(); ++r) {
    if (text[r] == '\r' && r + 1 < text.size() && text[r + 1] == '\n') continue;
    text[w++] = text[r];
  }
  text.resize(w);
}

std::string read_text_file(const std::string& path) {
  std::string text = read_file(path);
  normalise_text(text);
  return text;
}

void prepare_incremental_output(const std::string& path, const std::vector<std::string>& files, bool resume) {
  const fs::path dir(path);
  std::error_code ec;
  const bool ours = fs::is_regular_file(dir / kOutputMarker, ec);
  if (!(resume && ours)) {
    check_output_target(path);
    if (ours)  // a previous output that holds only what its marker lists: remove what it wrote
      for (const auto& n : marker_files(dir / kOutputMarker)) fs::remove(dir / n, ec);
  }
  fs::create_directories(dir, ec);
  if (ec) refuse(path, "cannot create the folder (" + ec.message() + ")");
  std::vector<std::string> names = files;
  if (resume && ours)
    for (const auto& n : marker_files(dir / kOutputMarker))
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::string marker = kMarkerHeader;
  for (const auto& n : names) marker += n + "\n";
  write_file_atomic((dir / kOutputMarker).string(), marker);
}

}  // namespace dmlkit
