// Closest names for "did you mean"; see suggest.h.
#include "core/suggest.h"

#include <algorithm>
#include <cctype>

namespace dmlkit {

int edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::vector<std::string> closest_names(std::string_view word, const std::vector<std::string>& candidates,
                                       size_t limit) {
  const int max_d = std::max<int>(1, static_cast<int>(word.size()) / 3);
  std::vector<std::pair<int, std::string>> scored;
  for (const auto& c : candidates) {
    if (c == word) continue;
    int d = edit_distance(word, c);
    if (word.size() >= 3 && c.size() > word.size() && c.compare(0, word.size(), word) == 0) d = std::min(d, max_d);
    if (d <= max_d) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() >= limit) break;
    out.push_back(c);
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto close = closest_names(word, candidates);
  if (close.empty()) return "";
  std::string s = " (did you mean ";
  for (size_t i = 0; i < close.size(); ++i)
    s += (i == 0 ? "" : i + 1 == close.size() ? " or " : ", ") + ("'" + close[i] + "'");
  return s + "?)";
}

}  // namespace dmlkit
