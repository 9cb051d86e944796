// Helpers for running the CLI in-process in tests.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dmlkit/cli.h"
#include "test_files.h"

namespace dmlkit::testing {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "dmlkit");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult r;
  r.status = dmlkit::app::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The mean of a cluster compare's avg_jct_s over the runs (seeds) of `policy` in its results
// JSON (-1 if it has none).
inline double avg_jct(const nlohmann::json& j, const std::string& policy) {
  double sum = 0;
  int n = 0;
  for (const auto& rec : j["records"])
    if (rec["name"] == policy) {
      sum += rec["metrics"]["avg_jct_s"].get<double>();
      ++n;
    }
  return n > 0 ? sum / n : -1;
}

// Expects a bad-input failure of `args`: status 2, exactly one line on stderr containing every
// needle, and no output folder dir/out (nor a staging folder) left behind.
inline void expect_bad_input(const std::vector<std::string>& args, const TempDir& dir,
                             const std::vector<std::string>& needles) {
  auto r = run_cli(args);
  EXPECT_EQ(r.status, 2) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  for (const auto& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << "missing '" << n << "' in: " << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("out"))) << "output folder left behind";
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".out.tmp"), std::string::npos) << "staging folder left behind";
}

// A results.json without its "invocation" (the command line, with its --out folder, and the input
// files' checksums: core/provenance.h), for comparing the results of two runs.
inline std::string results_without_invocation(const std::string& path) {
  auto j = nlohmann::ordered_json::parse(slurp(path));
  j.erase("invocation");
  return j.dump(2);
}

// A file of an output folder without what records how it was made (results.json's "invocation",
// report.html's "How to regenerate" footer): the command line differs between two runs that differ
// only in --out or --threads.
inline std::string without_provenance(const std::string& name, std::string content) {
  if (name == "results.json" || (name.size() > 13 && name.compare(name.size() - 13, 13, "/results.json") == 0)) {
    auto j = nlohmann::ordered_json::parse(content);
    j.erase("invocation");
    return j.dump(2);
  }
  const size_t from = content.find("<footer class=\"provenance\">");
  if (from != std::string::npos) {
    const size_t to = content.find("</footer>", from);
    if (to != std::string::npos) content.erase(from, to + 9 - from);
  }
  return content;
}

}  // namespace dmlkit::testing
