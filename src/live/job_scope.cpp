// The controller's scope: which jobs and nodes it manages (see job_scope.h).
#include "live/job_scope.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace dmlkit::live {

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

}  // namespace

bool JobScope::manages(const SlurmJob& job) const {
  if (!listed(accounts, job.account) || !listed(users, job.user)) return false;
  if (partitions.empty()) return true;
  const std::vector<std::string> own = split_commas(job.partition);
  return std::all_of(own.begin(), own.end(), [this](const std::string& p) { return listed(partitions, p); });
}

bool JobScope::covers(const SlurmNode& node) const {
  if (partitions.empty()) return true;
  return std::any_of(node.partitions.begin(), node.partitions.end(),
                     [this](const std::string& p) { return listed(partitions, p); });
}

std::string JobScope::describe() const {
  if (everything()) return "every job";
  std::string s;
  auto add = [&s](const char* what, const std::vector<std::string>& names) {
    if (!names.empty()) s += (s.empty() ? "" : ", ") + std::string(what) + " " + joined(names);
  };
  add("partition", partitions);
  add("account", accounts);
  add("user", users);
  return s;
}

void check_scope_names(const std::string& option, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    const bool plain = !n.empty() && n.size() <= 100 && std::all_of(n.begin(), n.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '-' || c == '_' || c == '.';
    });
    if (!plain)
      throw Error(option + ": expected a Slurm name (letters, digits, - _ .), got '" + n.substr(0, 100) + "'");
  }
}

}  // namespace dmlkit::live
