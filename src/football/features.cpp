// Hashed n-gram features (features.h).
#include "football/features.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace dmlkit::football {
namespace {

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (unsigned char c : text) {
    if (std::isalpha(c) || c >= 0x80) cur += static_cast<char>(std::tolower(c));
    else if (std::isdigit(c)) cur += '0';
    else if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::pair<int, float>> line_features(std::string_view text, const FeatureConfig& c) {
  std::vector<int> buckets;
  auto add = [&](uint64_t h) { buckets.push_back(static_cast<int>(h % static_cast<uint64_t>(c.dim))); };
  const uint64_t kw = fnv1a("w"), kb = fnv1a("b"), kc = fnv1a("c");
  const auto words = words_of(text);
  for (size_t i = 0; i < words.size(); ++i) {
    add(fnv1a(words[i], kw));
    if (c.bigrams && i + 1 < words.size()) add(fnv1a(words[i + 1], fnv1a(" ", fnv1a(words[i], kb))));
    std::string marked;
    marked.reserve(words[i].size() + 2);
    marked.push_back('<');
    marked.append(words[i]);
    marked.push_back('>');
    for (int n = c.char_min; n <= c.char_max; ++n)
      for (size_t k = 0; k + static_cast<size_t>(n) <= marked.size(); ++k)
        add(fnv1a(std::string_view(marked).substr(k, static_cast<size_t>(n)), kc));
  }
  std::sort(buckets.begin(), buckets.end());
  std::vector<std::pair<int, float>> out;
  for (int b : buckets) {
    if (!out.empty() && out.back().first == b) out.back().second += 1;
    else out.emplace_back(b, 1.0f);
  }
  double norm = 0;
  for (const auto& [_, v] : out) norm += double(v) * v;
  if (norm > 0)
    for (auto& [_, v] : out) v = static_cast<float>(v / std::sqrt(norm));
  return out;
}

}  // namespace dmlkit::football
