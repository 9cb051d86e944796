// "Did you mean": the known names closest to a mistyped one (edit distance with transpositions,
// scaled to the word's length), for the CLI's unknown commands and options and the registries'
// unknown names (issue 20).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dmlkit {

// Edit distance (insertions, deletions, substitutions, adjacent transpositions), case-insensitive.
int edit_distance(std::string_view a, std::string_view b);

// The candidates within max(1, |word| / 3) edits of `word`, or that start with it (at least 3
// characters), closest first; at most `limit`.
std::vector<std::string> closest_names(std::string_view word, const std::vector<std::string>& candidates,
                                       size_t limit = 3);

// " (did you mean 'a' or 'b'?)", or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace dmlkit
