#include "core/output_dir.h"

#include "core/provenance.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

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

// The error of a failed system call on `path` (errno): a full disk, an I/O error or a permission
// denied is an environment failure (exit status 3), a missing folder bad input (core/error.h).
Error errno_failure(const std::string& path, const std::string& what) {
  const int e = errno != 0 ? errno : EIO;  // a stream that failed without errno: an I/O error
  return Error::from_system(path, what, std::error_code(e, std::generic_category()));
}

std::string host_name() {
  char buf[256] = {0};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// The PID of a name `<stem>.tmp-<PID>` (dmlkit's staging folders and temporary files), or -1.
long temp_pid(const std::string& name, std::string* stem = nullptr) {
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos || at + 5 >= name.size()) return -1;
  const std::string digits = name.substr(at + 5);
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  if (stem != nullptr) *stem = name.substr(0, at);
  return std::stol(digits);
}

// The first line of a staging folder's marker: which process of which host stages there.
std::string staging_header(long pid, const std::string& host) {
  return "# dmlkit staging folder of process " + std::to_string(pid) + " on " + host;
}

// Removes the staging folders `.NAME.tmp-PID` in `parent` that a process of this host that no
// longer runs left behind (killed before it could clean up). Only folders whose marker says so are
// touched: a folder of another host (a shared file system) or of a live process is kept.
void remove_stale_staging(const fs::path& parent) {
  std::error_code ec;
  const std::string host = host_name();
  for (fs::directory_iterator it(parent.empty() ? fs::path(".") : parent, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long pid = temp_pid(name);
    if (name.empty() || name[0] != '.' || pid < 0 || pid == ::getpid() || process_alive(pid)) continue;
    std::error_code ignored;
    if (!fs::is_directory(fs::symlink_status(it->path(), ignored))) continue;
    std::ifstream marker(it->path() / kOutputMarker, std::ios::binary);
    std::string first;
    if (!std::getline(marker, first) || first != staging_header(pid, host)) continue;
    fs::remove_all(it->path(), ignored);
  }
}

// True if `name` is a temporary file of write_file_atomic for one of `listed` (`FILE.tmp-PID`):
// left by a run killed (or out of disk space) while it wrote FILE.
bool temp_of_listed(const std::string& name, const std::vector<std::string>& listed) {
  std::string stem;
  return temp_pid(name, &stem) >= 0 && std::find(listed.begin(), listed.end(), stem) != listed.end();
}

// Removes the temporary files of `listed` in `dir` whose writer no longer runs (a checkpoint a
// full disk or a kill cut short): the file itself is the last complete one.
void remove_stale_temp_files(const fs::path& dir, const std::vector<std::string>& listed) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long pid = temp_pid(name);
    if (!temp_of_listed(name, listed) || pid == ::getpid() || process_alive(pid)) continue;
    std::error_code ignored;
    if (fs::is_regular_file(fs::symlink_status(it->path(), ignored))) fs::remove(it->path(), ignored);
  }
}

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
    const bool known = std::find(listed.begin(), listed.end(), e) != listed.end() || temp_of_listed(e, listed);
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
  if (ec) throw Error::from_system(parent.string(), "cannot create folder", ec);
  remove_stale_staging(parent);
  std::string staging_name = ".";  // built piecewise: GCC 12 warns falsely on `"." + string&&`
  staging_name += final.filename().string();
  staging_name += ".tmp-";
  staging_name += std::to_string(::getpid());
  fs::path staging = parent / staging_name;
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) throw Error::from_system(staging.string(), "cannot create folder", ec);
  staging_path_ = staging.string();
  // Marks the folder as this process's staging, so a later run can remove it if this one is killed
  // (remove_stale_staging); commit() replaces it with the output's marker.
  std::ofstream marker(staging / kOutputMarker, std::ios::binary | std::ios::trunc);
  marker << staging_header(::getpid(), host_name()) << "\n";
  marker.close();
  if (!marker) {
    const Error failure = errno_failure((staging / kOutputMarker).string(), "cannot write file");
    fs::remove_all(staging, ec);  // no destructor runs for a constructor that throws
    throw failure;
  }
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
  errno = 0;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw errno_failure(p.string(), "cannot write file");
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
  errno = 0;
  out.close();
  if (!out) {
    const Error failure = errno_failure(p.string(), "write failed");
    drop();
    throw failure;
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
    if (!fs::exists(fs::path(staging_path_) / n))
      throw Error((fs::path(staging_path_) / n).string(), 0, "", "output file was not written");
  std::vector<std::string> names = written_;
  std::sort(names.begin(), names.end());
  std::string marker = kMarkerHeader;
  for (const auto& n : names) marker += n + "\n";
  const fs::path staging(staging_path_);
  {
    errno = 0;
    std::ofstream m(staging / kOutputMarker, std::ios::binary | std::ios::trunc);
    m << marker;
    m.close();
    if (!m) throw errno_failure((staging / kOutputMarker).string(), "cannot write file");
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
      if (ec) throw Error::from_system(final_path_, "cannot replace folder", ec);
    } else {
      std::string old_name = ".";  // built piecewise: GCC 12 warns falsely on `"." + string&&`
      old_name += final.filename().string();
      old_name += ".old-";
      old_name += std::to_string(::getpid());
      old = final.parent_path() / old_name;
      fs::rename(final, old, ec);
      if (ec) throw Error::from_system(final_path_, "cannot replace folder", ec);
    }
  }
  fs::rename(staging, final, ec);
  if (ec) {
    std::error_code ignored;
    if (!old.empty()) fs::rename(old, final, ignored);
    throw Error::from_system(final_path_, "cannot move output into place", ec);
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
  // Write, fsync, rename: after a crash or a full disk, `path` is the old file or the new one,
  // never a part; a failed write removes its temporary file.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw errno_failure(path, "cannot write file");
  auto fail = [&](const char* what) {
    const Error failure = errno_failure(path, what);
    ::close(fd);
    ::unlink(tmp.c_str());
    throw failure;
  };
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) fail("write failed (fsync)");
  if (::close(fd) != 0) {
    const Error failure = errno_failure(path, "write failed (close)");
    ::unlink(tmp.c_str());
    throw failure;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const Error failure = errno_failure(path, "cannot move file into place");
    ::unlink(tmp.c_str());
    throw failure;
  }
}

std::string read_file(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::error_code ec(errno, std::generic_category());
    if (is_environment_failure(ec)) throw Error::from_system(path, "cannot open file", ec);
    throw Error(path, 0, "", "cannot open file");
  }
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

namespace {

// Length of the valid UTF-8 sequence at text[i] (1 for ASCII), or 0 if none starts there (a stray
// continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, a cut sequence).
size_t utf8_sequence(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;  // no overlong form
    if (b == 0xED) hi = 0x9F;  // no surrogate
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;  // no overlong form
    if (b == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

// Windows-1252 (Latin-1 with printable characters in 0x80-0x9F, what spreadsheet programs write):
// the code point of byte b >= 0x80, or 0 for the five bytes it leaves undefined.
char32_t windows_1252(unsigned char b) {
  static constexpr char32_t k80[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                       0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                       0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                       0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};
  return b < 0xA0 ? k80[b - 0x80] : static_cast<char32_t>(b);
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

long line_at(const std::string& text, size_t i) {
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '\n'));
}

std::string hex_byte(unsigned char b) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return std::string("0x") + kDigits[b >> 4] + kDigits[b & 0xF];
}

}  // namespace

void decode_text(std::string& text, const std::string& path) {
  size_t first_invalid = std::string::npos;
  bool multibyte = false;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence(text, i);
    if (n == 0) {
      if (first_invalid == std::string::npos) first_invalid = i;
      ++i;
      continue;
    }
    multibyte = multibyte || n > 1;
    i += n;
  }
  if (first_invalid == std::string::npos) return;  // UTF-8 (or ASCII): as it is
  const auto bad = static_cast<unsigned char>(text[first_invalid]);
  if (multibyte)
    throw Error(path, line_at(text, first_invalid), "",
                "mixes UTF-8 with another encoding (byte " + hex_byte(bad) + "); save the file as UTF-8");
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const char32_t c = b < 0x80 ? b : windows_1252(b);
    if (c == 0)
      throw Error(path, line_at(text, i), "",
                  "neither UTF-8 nor Latin-1/Windows-1252 (byte " + hex_byte(b) + "); save the file as UTF-8");
    append_utf8(out, c);
  }
  text = std::move(out);
}

std::string read_text_file(const std::string& path) {
  std::string text = read_file(path);
  decode_text(text, path);
  normalise_text(text);
  return text;
}

void prepare_incremental_output(const std::string& path, const std::vector<std::string>& files, bool resume) {
  const fs::path dir(path);
  std::error_code ec;
  const bool ours = fs::is_regular_file(dir / kOutputMarker, ec);
  const std::vector<std::string> previous = ours ? marker_files(dir / kOutputMarker) : std::vector<std::string>{};
  if (!(resume && ours)) {
    check_output_target(path);
    // A previous output that holds only what its marker lists (and temporary files of those):
    // remove what it wrote.
    for (const auto& n : previous) fs::remove(dir / n, ec);
  }
  fs::create_directories(dir, ec);
  if (ec) throw Error::from_system("--out " + path, "cannot create the folder", ec);
  std::vector<std::string> names = files;
  if (resume && ours)
    for (const auto& n : previous)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::vector<std::string> known = names;
  known.insert(known.end(), previous.begin(), previous.end());
  remove_stale_temp_files(dir, known);
  std::string marker = kMarkerHeader;
  for (const auto& n : names) marker += n + "\n";
  write_file_atomic((dir / kOutputMarker).string(), marker);
}

}  // namespace dmlkit
