#include "core/table.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "core/csv.h"
#include "core/text_safety.h"

namespace dmlkit {

namespace {
// "-0.000" (a tiny negative value, or -0.0, rounded to zero) is written as "0.000".
bool negative_zero(const char* begin, const char* end) {
  if (end - begin < 2 || *begin != '-') return false;
  for (const char* c = begin + 1; c < end; ++c)
    if (*c != '0' && *c != '.') return false;
  return true;
}
}  // namespace

std::string fixed(double v, int digits) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  if (n > 0 && n < static_cast<int>(sizeof buf) && negative_zero(buf, buf + n)) return buf + 1;
  return buf;
}

void append_fixed(std::string& out, double v, int digits) {
  // to_chars with a precision formats as printf("%.*f") does; a value too long for the buffer
  // (|v| near 1e300) falls back to snprintf.
  char buf[128];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, digits);
  if (r.ec == std::errc{})
    out.append(negative_zero(buf, r.ptr) ? buf + 1 : buf, r.ptr);
  else
    out += fixed(v, digits);
}

CsvWriter::CsvWriter(std::ostream& out, size_t buffer_bytes) : out_(out), limit_(buffer_bytes) {
  buf_.reserve(buffer_bytes + 256);
}

CsvWriter& CsvWriter::text(std::string_view s) {
  sep();
  append_csv_field(buf_, s);
  return *this;
}

void CsvWriter::header(const std::vector<std::string>& names) {
  for (const auto& n : names) text(n);
  end_row();
}

void CsvWriter::end_row() {
  buf_ += '\n';
  first_ = true;
  if (buf_.size() >= limit_) {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
}

void CsvWriter::finish() {
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
  out_.flush();
}

void append_csv_field(std::string& out, std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
    out.append(s);
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string csv_escape(const std::string& s) {
  std::string out;
  append_csv_field(out, s);
  return out;
}

std::string TextTable::render() const {
  // Cells come from files (feed text, job names): shown terminal-safe, one line each.
  auto safe = [](const std::vector<std::string>& cells) {
    std::vector<std::string> out;
    out.reserve(cells.size());
    for (const auto& c : cells) out.push_back(terminal_safe(c));
    return out;
  };
  const std::vector<std::string> header = safe(header_);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(rows_.size());
  for (const auto& r : rows_) rows.push_back(safe(r));
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells, bool is_header) {
    std::string out;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      double dummy = 0;
      const bool numeric = !is_header && parse_double(cell, dummy);
      const std::string pad(width[c] - cell.size(), ' ');
      if (c > 0) out += "  ";
      out += numeric ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header, true);
  size_t total = 0;
  for (auto w : width) total += w;
  out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
  for (const auto& r : rows) out += line(r, false);
  return out;
}

std::string TextTable::to_csv() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_escape(cells[c]);
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace dmlkit
