#include "core/csv.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit {

bool parse_double(std::string_view s, double& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

bool parse_long(std::string_view s, long& out) {
  double d = 0;
  if (!parse_double(s, d)) return false;
  if (d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
  out = static_cast<long>(d);
  return true;
}

CsvTable CsvTable::read(const std::string& path) { return parse(read_file(path), path); }

CsvTable CsvTable::parse(std::string text, const std::string& path) {
  CsvTable t;
  t.path_ = path;
  t.text_ = std::move(text);
  decode_text(t.text_, path);  // a spreadsheet's Latin-1 reads as UTF-8 (core/output_dir.h)
  normalise_text(t.text_);     // and its BOM and CRLF as the plain file does
  const std::string& s = t.text_;
  size_t pos = 0;
  long line = 0;
  std::vector<std::string_view> fields;
  bool have_header = false;
  while (pos < s.size()) {
    ++line;
    long record_line = line;
    fields.clear();
    bool blank = true;
    // Parse one record (may span lines inside quotes).
    while (true) {
      if (pos < s.size() && s[pos] == '"') {
        blank = false;
        std::string value;
        ++pos;
        while (true) {
          if (pos >= s.size()) throw Error(path, record_line, "", "unterminated quoted field");
          char c = s[pos++];
          if (c == '"') {
            if (pos < s.size() && s[pos] == '"') {
              value += '"';
              ++pos;
            } else {
              break;
            }
          } else {
            if (c == '\n') ++line;
            value += c;
          }
        }
        t.unquoted_.push_back(std::move(value));
        fields.emplace_back(t.unquoted_.back());
      } else {
        size_t start = pos;
        while (pos < s.size() && s[pos] != ',' && s[pos] != '\n' && s[pos] != '\r') ++pos;
        if (pos > start) blank = false;
        fields.emplace_back(s.data() + start, pos - start);
      }
      if (pos < s.size() && s[pos] == ',') {
        blank = false;
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '\r') ++pos;
      if (pos < s.size() && s[pos] == '\n') ++pos;
      break;
    }
    if (blank) continue;  // empty line
    if (!have_header) {
      for (auto f : fields) t.header_.emplace_back(f);
      t.ncols_ = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() != t.ncols_) {
      throw Error(path, record_line, "",
                  "expected " + std::to_string(t.ncols_) + " fields, found " + std::to_string(fields.size()));
    }
    t.cells_.insert(t.cells_.end(), fields.begin(), fields.end());
    t.row_line_.push_back(record_line);
  }
  if (!have_header) throw Error(path, 0, "", "file is empty (no header line)");
  return t;
}

bool CsvTable::has_column(std::string_view name) const {
  for (const auto& h : header_)
    if (h == name) return true;
  return false;
}

int CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return static_cast<int>(i);
  throw Error(path_, 1, std::string(name), "missing column");
}

std::string_view CsvTable::str(size_t row, int col) const { return cells_[row * ncols_ + col]; }

void CsvTable::fail(size_t row, int col, const std::string& message) const {
  throw Error(path_, line_of(row), header_[col], message);
}

double CsvTable::num(size_t row, int col) const {
  double v = 0;
  if (!parse_double(str(row, col), v)) fail(row, col, "not a number: '" + std::string(str(row, col)) + "'");
  return v;
}

long CsvTable::integer(size_t row, int col) const {
  long v = 0;
  if (!parse_long(str(row, col), v)) fail(row, col, "not an integer: '" + std::string(str(row, col)) + "'");
  return v;
}

}  // namespace dmlkit
