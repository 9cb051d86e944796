// What every continual run returns (run.h), and the class-pair parser of the image commands.
#include "continual/run.h"

#include <stdexcept>

#include "core/error.h"

namespace dmlkit::continual {

std::string RunOutput::summary_text(const std::string& format) const {
  if (format == "json") return results.json_text();
  if (format == "csv") return printed_csv.to_csv();
  return heading + printed.render();
}

void RunOutput::write(OutputDir& out) const {
  results.write(out);
  for (const auto& [name, table] : tables) out.write(name, table.to_csv());
  report.write(out);
}

std::vector<std::pair<int, int>> parse_class_pairs(const std::vector<std::string>& texts, const char* field) {
  std::vector<std::pair<int, int>> pairs;
  for (const auto& s : texts) {
    const auto dash = s.find('-');
    try {
      if (dash == std::string::npos) throw std::invalid_argument(s);
      size_t u1 = 0, u2 = 0;
      const int a = std::stoi(s.substr(0, dash), &u1), b = std::stoi(s.substr(dash + 1), &u2);
      if (u1 != dash || u2 != s.size() - dash - 1) throw std::invalid_argument(s);
      pairs.emplace_back(a, b);
    } catch (const std::exception&) {
      throw Error("", 0, field, "expected class pairs like 0-1, got '" + s + "'");
    }
  }
  return pairs;
}

}  // namespace dmlkit::continual
