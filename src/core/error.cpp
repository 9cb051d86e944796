#include "core/error.h"

#include <cerrno>

#include "core/text_safety.h"

namespace dmlkit {
namespace {
// The one error formatter: what comes from input (a path, a key, a value echoed in the message) is
// shown terminal-safe (core/text_safety.h: no line break, no escape sequence) and capped, so an
// error is always one short line.
std::string format_message(const std::string& file, long line, const std::string& field, const std::string& message) {
  std::string out;
  if (!file.empty()) {
    out += terminal_safe(file, kMaxMessageBytes);
    if (line > 0) {
      // (appended piecewise: GCC 12 warns falsely (-Wrestrict) about `":" + std::to_string(...)`
      // and `"field '" + field` here)
      out += ':';
      out += std::to_string(line);
    }
    out += ": ";
  }
  if (!field.empty()) {
    out += "field '";
    out += terminal_safe(field, kMaxEchoBytes);
    out += "': ";
  }
  out += terminal_safe(message, kMaxMessageBytes);
  return out;
}
}  // namespace

Error::Error(std::string file, long line, std::string field, const std::string& message, Kind kind)
    : std::runtime_error(format_message(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      kind_(kind) {}

Error::Error(const std::string& message, Kind kind)
    : std::runtime_error(format_message("", 0, "", message)), kind_(kind) {}

bool is_environment_failure(std::error_code ec) {
  if (!ec) return false;
  if (ec.category() != std::generic_category() && ec.category() != std::system_category()) return true;
  switch (ec.value()) {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
    case EEXIST:
    case ENOTEMPTY:
      return false;
    default:
      return true;
  }
}

Error Error::from_system(const std::string& path, const std::string& what, std::error_code ec) {
  const Kind kind = is_environment_failure(ec) ? Kind::Environment : Kind::BadInput;
  return Error(path, 0, "", ec ? what + ": " + ec.message() : what, kind);
}

int Error::exit_status() const { return kind_ == Kind::Environment ? kExitEnvironment : kExitBadInput; }

}  // namespace dmlkit
