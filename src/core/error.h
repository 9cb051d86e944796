// One error type for every failure the user can act on: it names the file, the line and the field,
// so the CLI can print a single line. Its kind picks the exit status: bad input (2, the same input
// fails again) or a failing environment (3: a full disk, an I/O error, a permission denied;
// nothing is wrong with the input and a retry may succeed, so sweeps retry it). what() shows the
// file, field and message through terminal_safe() (core/text_safety.h): control characters
// escaped, an echoed piece of input capped (the field at kMaxEchoBytes, the message at
// kMaxMessageBytes), so it is one short line whatever the input held; file(), field() keep the
// full text.
#pragma once
#include <stdexcept>
#include <string>
#include <system_error>

namespace dmlkit {

// Exit statuses of the CLI (docs/cli-conventions.md).
inline constexpr int kExitInternal = 1;     // a bug: "internal error: ..."
inline constexpr int kExitBadInput = 2;     // a file, option or value the program refuses
inline constexpr int kExitEnvironment = 3;  // the disk, the file system or a permission failed

class Error : public std::runtime_error {
 public:
  enum class Kind { BadInput, Environment };

  // A problem with one field of one line of one file. line <= 0 means "no line" (e.g. missing
  // file); an empty field means "the whole line/file".
  Error(std::string file, long line, std::string field, const std::string& message, Kind kind = Kind::BadInput);
  // A problem not tied to a file (an unknown policy name, a bad command-line value).
  explicit Error(const std::string& message, Kind kind = Kind::BadInput);

  // An operating-system failure on `path` (writing, creating, moving, reading a file): an
  // Environment error for a full disk, an I/O error, a permission denied, ...; a BadInput one for
  // a path that does not exist or is not a folder (ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP).
  static Error from_system(const std::string& path, const std::string& what, std::error_code ec);

  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& field() const { return field_; }
  Kind kind() const { return kind_; }
  // kExitBadInput or kExitEnvironment.
  int exit_status() const;

 private:
  std::string file_;
  long line_ = 0;
  std::string field_;
  Kind kind_ = Kind::BadInput;
};

// True if `ec` is a failure of the environment rather than of the path given (see from_system).
bool is_environment_failure(std::error_code ec);

}  // namespace dmlkit
