#include "core/error.h"

namespace dmlkit {
namespace {
std::string format_message(const std::string& file, long line, const std::string& field, const std::string& message) {
  std::string out;
  if (!file.empty()) {
    out += file;
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
    out += field;
    out += "': ";
  }
  out += message;
  return out;
}
}  // namespace

Error::Error(std::string file, long line, std::string field, const std::string& message)
    : std::runtime_error(format_message(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)) {}

Error::Error(const std::string& message) : std::runtime_error(message) {}

}  // namespace dmlkit
