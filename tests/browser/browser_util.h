// Helpers of the headless-Chromium tests (ctest -L browser): run Chromium on a page, read the DOM
// it dumps after the page ran, and the attributes the report's scripts set (core/html_report.cpp:
// <body data-error-count data-errors data-charts-expected data-charts-drawn>, and on every canvas
// data-drawn, data-ink, data-points). Chromium comes from scripts/install-deps.sh; without it the
// tests fail, unless DMLKIT_SKIP_BROWSER_TESTS=1.
#pragma once
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/subprocess.h"

namespace dmlkit::browser {

namespace fs = std::filesystem;

// Attributes of the first tag matching `tag_regex` (e.g. "<body[^>]*>") or of every such tag.
inline std::vector<std::map<std::string, std::string>> tags(const std::string& dom, const std::string& tag_regex) {
  std::vector<std::map<std::string, std::string>> out;
  const std::regex tag(tag_regex, std::regex::icase);
  const std::regex attr(R"re(([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string text = it->str();
    std::map<std::string, std::string> attrs;
    for (auto a = std::sregex_iterator(text.begin(), text.end(), attr); a != std::sregex_iterator(); ++a)
      attrs[(*a)[1].str()] = (*a)[2].str();
    out.push_back(std::move(attrs));
  }
  return out;
}

inline long number(const std::map<std::string, std::string>& attrs, const std::string& name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return -1;
  try {
    return std::stol(it->second);
  } catch (...) {
    return -1;
  }
}

// A fresh folder under the system temp dir, removed at the end unless the test failed.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "dmlkit-browser-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempDir() {
    if (::testing::Test::HasFailure()) {
      std::cerr << "kept for inspection: " << path << "\n";
      return;
    }
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Chromium's path, or "" when the browser tests are skipped (DMLKIT_SKIP_BROWSER_TESTS=1).
inline std::string chromium_or_skip() {
  const char* skip = std::getenv("DMLKIT_SKIP_BROWSER_TESTS");
  if (skip && std::string(skip) == "1") return "";
  const char* chromium_env = std::getenv("DMLKIT_CHROMIUM");
  return chromium_env && *chromium_env ? chromium_env : "/usr/bin/chromium";
}

// Opens `page` in headless Chromium (60 s at most) and returns the DOM after the page ran, or ""
// after recording a test failure.
inline std::string dump_dom(const std::string& chromium, const TempDir& dir, const fs::path& page) {
  if (::access(chromium.c_str(), X_OK) != 0) {
    ADD_FAILURE() << "headless Chromium not found at " << chromium
                  << ": run scripts/install-deps.sh (Debian package 'chromium'), or set "
                     "DMLKIT_SKIP_BROWSER_TESTS=1 to skip";
    return "";
  }
  const dmlkit::ProcessResult r = dmlkit::run_process(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
       "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
       "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1200,900",
       "--user-data-dir=" + (dir.path / ("profile-" + page.stem().string())).string(), "--virtual-time-budget=5000",
       "--dump-dom", "file://" + page.string()},
      {}, 60);
  if (!r.started) {
    ADD_FAILURE() << "chromium could not be started";
    return "";
  }
  if (r.timed_out) {
    ADD_FAILURE() << "chromium timed out after 60 s; log:\n" << r.err;
    return "";
  }
  if (r.exit_code != 0) {
    ADD_FAILURE() << "chromium failed with status " << r.exit_code << "; log:\n" << r.err;
    return "";
  }
  std::string dom = r.out;
  if (dom.find("</html>") == std::string::npos) {
    ADD_FAILURE() << "no DOM dumped; log:\n" << r.err;
    return "";
  }
  return dom;
}

inline std::map<std::string, std::string> body_of(const std::string& dom) {
  const auto bodies = tags(dom, "<body[^>]*>");
  EXPECT_EQ(bodies.size(), 1u);
  return bodies.empty() ? std::map<std::string, std::string>{} : bodies[0];
}

inline std::string attr(const std::map<std::string, std::string>& attrs, const std::string& name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? std::string() : it->second;
}

}  // namespace dmlkit::browser
