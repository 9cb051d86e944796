// A plain-text table printer (aligned columns, numbers right-aligned) and its CSV twin.
#pragma once
#include <charconv>
#include <concepts>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace dmlkit {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  // Aligned text, one line per row, trailing newline; cells terminal-safe (core/text_safety.h).
  std::string render() const;
  std::string to_csv() const;  // RFC 4180 CSV with header

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Appends `s` to `out` as one CSV field: quoted (inner quotes doubled) when it holds a comma, quote
// or line break, as is otherwise. The one escaping rule of every CSV dmlkit writes.
void append_csv_field(std::string& out, std::string_view s);
// The same, as a new string.
std::string csv_escape(const std::string& s);
// Fixed-point formatting with `digits` decimals ("%.*f").
std::string fixed(double v, int digits);
// Appends fixed(v, digits) to `out` without a temporary string (std::to_chars, the same text).
void append_fixed(std::string& out, double v, int digits);

// Streams CSV rows into `out` through a buffer of about `buffer_bytes`, producing exactly the text
// TextTable::to_csv gives for the same cells (fields escaped as csv_escape, numbers as fixed() and
// std::to_string), without a std::string per cell or the whole table in memory. Call finish() at
// the end (the destructor does not flush); write errors show in the stream's state.
class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out, size_t buffer_bytes = size_t{1} << 16);
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  CsvWriter& text(std::string_view s);  // escaped if needed
  template <std::integral T>
  CsvWriter& integer(T v) {
    sep();
    char b[24];
    buf_.append(b, std::to_chars(b, b + sizeof b, v).ptr);
    return *this;
  }
  CsvWriter& fixed(double v, int digits) {
    sep();
    append_fixed(buf_, v, digits);
    return *this;
  }
  CsvWriter& empty() {
    sep();
    return *this;
  }
  void header(const std::vector<std::string>& names);  // one row of text cells
  void end_row();
  void finish();  // writes what is buffered

 private:
  void sep() {
    if (!first_) buf_ += ',';
    first_ = false;
  }
  std::ostream& out_;
  std::string buf_;
  size_t limit_;
  bool first_ = true;
};

}  // namespace dmlkit
