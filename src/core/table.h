// A plain-text table printer (aligned columns, numbers right-aligned) and its CSV twin.
#pragma once
#include <string>
#include <vector>

namespace dmlkit {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  std::string render() const;  // aligned text, one line per row, trailing newline
  std::string to_csv() const;  // RFC 4180 CSV with header

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Quotes a CSV field if needed.
std::string csv_escape(const std::string& s);
// Fixed-point formatting with `digits` decimals ("%.*f").
std::string fixed(double v, int digits);

}  // namespace dmlkit
