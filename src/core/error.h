// One error type for every bad input: it names the file, the line and the field, so the CLI can
// print a single line and exit with status 2. what() shows the file, field and message through
// terminal_safe() (core/text_safety.h): control characters escaped, an echoed piece of input capped
// (the field at kMaxEchoBytes, the message at kMaxMessageBytes), so it is one short line whatever
// the input held; file(), field() keep the full text.
#pragma once
#include <stdexcept>
#include <string>

namespace dmlkit {

class Error : public std::runtime_error {
 public:
  // A problem with one field of one line of one file. line <= 0 means "no line" (e.g. missing
  // file); an empty field means "the whole line/file".
  Error(std::string file, long line, std::string field, const std::string& message);
  // A problem not tied to a file (an unknown policy name, a bad command-line value).
  explicit Error(const std::string& message);

  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  long line_ = 0;
  std::string field_;
};

}  // namespace dmlkit
