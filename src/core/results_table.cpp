// rounded_records_table (see results_table.h).
#include "core/results_table.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dmlkit {
namespace {

using nlohmann::ordered_json;

std::vector<std::string> union_keys(const std::vector<ResultRecord>& records, bool params) {
  std::vector<std::string> keys;
  for (const auto& r : records)
    for (const auto& [k, v] : (params ? r.params : r.metrics).items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  return keys;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int column_digits(const std::string& name, double largest) { return ends_with(name, "_s") && largest >= 100 ? 1 : 3; }

TextTable rounded_records_table(const Results& results) {
  const auto& records = results.records();
  const auto params = union_keys(records, true);
  const auto metrics = union_keys(records, false);
  std::vector<std::string> header{results.record_kind(), "seed"};
  header.insert(header.end(), params.begin(), params.end());
  header.insert(header.end(), metrics.begin(), metrics.end());
  std::vector<int> digits;
  for (const auto& k : metrics) {
    double largest = 0;
    for (const auto& r : records)
      if (r.metrics.contains(k) && r.metrics[k].is_number_float())
        largest = std::max(largest, std::fabs(r.metrics[k].get<double>()));
    digits.push_back(column_digits(k, largest));
  }
  TextTable t(header);
  for (const auto& r : records) {
    std::vector<std::string> row{r.name, std::to_string(r.seed)};
    for (const auto& k : params) row.push_back(r.params.contains(k) ? json_cell(r.params[k]) : "");
    for (size_t i = 0; i < metrics.size(); ++i) {
      if (!r.metrics.contains(metrics[i])) {
        row.emplace_back();
        continue;
      }
      const ordered_json& v = r.metrics[metrics[i]];
      row.push_back(v.is_number_float() ? fixed(v.get<double>(), digits[i]) : json_cell(v));
    }
    t.add_row(std::move(row));
  }
  return t;
}

}  // namespace dmlkit
