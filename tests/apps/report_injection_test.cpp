// Issue 36 item 6: `dmlkit report DIR` renders report.json and the footer from results.json; a
// crafted results folder must not run script in the page. Every string field of both files, one at
// a time, is replaced by markup; the page never holds it as markup (or the file is refused).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_util.h"

namespace dmlkit::testing {
namespace {

using nlohmann::json;

constexpr const char* kPayload = "<img src=x onerror=alert(1)>";

// JSON pointers of every string value in `j`.
void string_fields(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  if (j.is_string()) {
    out.push_back(at);
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) string_fields(value, at / key, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) string_fields(j[i], at / i, out);
  }
}

// Replaces each string field of `file` in the folder in turn, re-renders, and checks the page.
// Returns how many replacements rendered a page (the others were refused as bad input).
size_t check_every_string_field(const TempDir& dir, const std::string& file) {
  const std::string path = dir.path("run/" + file);
  const std::string original = slurp(path);
  const json doc = json::parse(original);
  std::vector<json::json_pointer> fields;
  string_fields(doc, json::json_pointer(), fields);
  EXPECT_GE(fields.size(), 5u) << file;
  size_t rendered = 0;
  for (const auto& field : fields) {
    SCOPED_TRACE(file + " " + field.to_string());
    json crafted = doc;
    crafted[field] = kPayload;
    dir.write("run/" + file, crafted.dump(2));
    const auto r = run_cli({"report", dir.path("run")});
    if (r.status == 2) {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      continue;
    }
    EXPECT_EQ(r.status, 0) << r.err;
    if (r.status != 0) continue;
    const std::string page = slurp(dir.path("run/report.html"));
    EXPECT_EQ(page.find("<img"), std::string::npos) << "unescaped markup in report.html";
    ++rendered;
  }
  dir.write("run/" + file, original);
  return rendered;
}

TEST(ReportInjection, EveryStringFieldOfResultsAndReportJsonIsEscaped) {
  TempDir dir("report-injection");
  // A workload file, so results.json lists an input file (path, bytes, SHA-256) for the footer.
  const std::string workload = dir.write("w.csv", "name,time,num_gpus,duration\nj1,0,1,100\nj2,10,2,200\nj3,20,1,50\n");
  const auto r = run_cli({"cluster", "compare", "--workload", workload, "--cluster", "2x4", "--policies", "fifo,srtf",
                          "--out", dir.path("run")});
  ASSERT_EQ(r.status, 0) << r.err;
  const json results = json::parse(slurp(dir.path("run/results.json")));
  ASSERT_FALSE(results["invocation"]["input_files"].empty()) << "the footer's input-file table is exercised";
  EXPECT_GT(check_every_string_field(dir, "results.json"), 5u);
  EXPECT_GT(check_every_string_field(dir, "report.json"), 5u);
}

}  // namespace
}  // namespace dmlkit::testing
