// Parser and writer of the "dmlkit:key=value,..." job comment.
#include "live/job_meta.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

#include "core/csv.h"

namespace dmlkit::live {

namespace {

bool parse_int(const std::string& s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  for (unsigned char c : s)
    if (!std::isdigit(c)) return false;
  out = std::stoi(s);
  return true;
}

bool safe_token(const std::string& s) {
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) return false;
  return !s.empty() && s.size() <= 128;
}

}  // namespace

JobMeta parse_job_meta(const std::string& comment, std::string* problem) {
  JobMeta m;
  const std::string prefix = "dmlkit:";
  if (comment.compare(0, prefix.size(), prefix) != 0) return m;
  std::stringstream ss(comment.substr(prefix.size()));
  std::string item;
  auto bad = [&](const std::string& what) {
    if (problem) *problem += (problem->empty() ? "" : "; ") + what;
  };
  while (std::getline(ss, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      bad("'" + item + "' is not key=value");
      continue;
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    int iv = 0;
    double dv = 0;
    if (key == "app") {
      if (safe_token(value))
        m.application = value;
      else
        bad("app: not a plain name");
    } else if (key == "batch") {
      if (parse_int(value, iv) && iv > 0)
        m.batch_size = iv;
      else
        bad("batch: not a positive integer");
    } else if (key == "gpus") {
      if (parse_int(value, iv) && iv > 0)
        m.gpus = iv;
      else
        bad("gpus: not a positive integer");
    } else if (key == "duration_s") {
      if (parse_double(value, dv) && dv > 0 && std::isfinite(dv))
        m.duration_s = dv;
      else
        bad("duration_s: not a positive number");
    } else if (key == "ps_type") {
      if (safe_token(value))
        m.ps_type = value;
      else
        bad("ps_type: not a plain name");
    } else if (key == "workers" || key == "ps") {
      if (parse_int(value, iv) && iv > 0 && iv <= 1000)
        (key == "workers" ? m.workers : m.ps) = iv;
      else
        bad(key + ": not an integer in [1, 1000]");
    } else if (key == "epochs") {
      if (parse_double(value, dv) && dv > 0 && std::isfinite(dv))
        m.epochs = dv;
      else
        bad("epochs: not a positive number");
    } else if (key == "mode") {
      if (value == "sync" || value == "async")
        m.async = value == "async";
      else
        bad("mode: expected sync or async");
    } else if (key == "seed") {
      uint64_t seed = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seed);
      if (!value.empty() && ec == std::errc() && end == value.data() + value.size())
        m.seed = seed;
      else
        bad("seed: not an integer in [0, 2^64)");
    } else if (key == "name") {
      if (safe_token(value))
        m.name = value;
      else
        bad("name: not a plain name");
    }
  }
  return m;
}

std::string format_job_meta(const JobMeta& m) {
  std::string s = "dmlkit:";
  bool first = true;
  auto add = [&](const std::string& k, const std::string& v) {
    s += (first ? "" : ",") + k + "=" + v;
    first = false;
  };
  if (!m.application.empty()) add("app", m.application);
  if (m.batch_size > 0) add("batch", std::to_string(m.batch_size));
  if (m.gpus > 0) add("gpus", std::to_string(m.gpus));
  if (m.duration_s > 0) {
    std::ostringstream d;
    d.precision(10);
    d << m.duration_s;
    add("duration_s", d.str());
  }
  if (!m.ps_type.empty()) {
    std::ostringstream e;
    e.precision(12);
    e << m.epochs;
    add("ps_type", m.ps_type);
    add("workers", std::to_string(m.workers));
    add("ps", std::to_string(m.ps));
    add("epochs", e.str());
    add("mode", m.async ? "async" : "sync");
    add("seed", std::to_string(m.seed));
  }
  if (!m.name.empty()) add("name", m.name);
  return s;
}

}  // namespace dmlkit::live
