// CSV reading with errors that name file, line and column. Handles a header row, quoted fields
// (RFC 4180 style, "" escapes), a UTF-8 byte-order mark, CRLF line ends (also inside quoted
// fields) and blank trailing lines, so a spreadsheet's export reads as the plain file does. The
// whole file is kept in memory as one string; fields are string_views into it.
#pragma once
#include <string>
#include <string_view>
#include <deque>
#include <vector>

namespace dmlkit {

class CsvTable {
 public:
  // Reads `path`; throws Error if the file is missing, empty (no header), or a row has a
  // different number of fields than the header.
  static CsvTable read(const std::string& path);
  // Parses `text` as if it were the file `path` (for tests and embedded data).
  static CsvTable parse(std::string text, const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t rows() const { return row_line_.size(); }

  bool has_column(std::string_view name) const;
  // Index of column `name`; throws Error(path, 1, name, "missing column") if absent.
  int column(std::string_view name) const;

  std::string_view str(size_t row, int col) const;
  // Parses a finite number; throws Error naming file, line and column if it is not one.
  double num(size_t row, int col) const;
  long integer(size_t row, int col) const;
  // The 1-based line number in the file of data row `row` (for error messages).
  long line_of(size_t row) const { return row_line_[row]; }
  // Throws Error(path, line_of(row), header[col], message).
  [[noreturn]] void fail(size_t row, int col, const std::string& message) const;

 private:
  std::string path_;
  std::string text_;
  std::vector<std::string> header_;
  size_t ncols_ = 0;
  std::deque<std::string> unquoted_;     // stable storage for fields that needed unescaping
  std::vector<std::string_view> cells_;  // rows() * ncols_
  std::vector<long> row_line_;
};

// Parses a whole string as a finite double; false if it is not one.
bool parse_double(std::string_view s, double& out);
bool parse_long(std::string_view s, long& out);

}  // namespace dmlkit
