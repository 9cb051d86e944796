// Exit statuses (issue 36, item 12; docs/cli-conventions.md): 2 for bad input, 3 for a failing
// environment (a full disk), 1 only for a bug. `dmlkit report` and `dmlkit diff` on JSON whose
// fields have the wrong type refuse it with one line and exit 2, never "internal error"; a run that
// runs out of disk space exits 3 and leaves no output or staging folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "cli_test_util.h"
#include "core/subprocess.h"

namespace dmlkit::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<json> kWrongValues{json(42), json("x"), json::array(), json::object(), json(nullptr), json(-1.5)};

// The paths of every value of `node` reached through object members and the first element of
// each array.
void collect_paths(const json& node, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      out.push_back(at / it.key());
      collect_paths(it.value(), at / it.key(), out);
    }
  } else if (node.is_array() && !node.empty()) {
    out.push_back(at / 0);
    collect_paths(node[0], at / 0, out);
  }
}

// Each of those values replaced in turn by every value of kWrongValues of another type.
void for_each_mutation(const json& j, const std::function<void(const json&, const std::string&)>& visit) {
  std::vector<json::json_pointer> paths;
  collect_paths(j, json::json_pointer(), paths);
  for (const auto& path : paths)
    for (const auto& wrong : kWrongValues) {
      json copy = j;
      if (copy[path].type() == wrong.type()) continue;
      copy[path] = wrong;
      visit(copy, path.to_string() + " = " + wrong.dump());
    }
}

void expect_refused_or_fine(const CliResult& r, const std::string& what) {
  EXPECT_TRUE(r.status == 0 || r.status == 2) << what << ": status " << r.status << ": " << r.err;
  if (r.status == 2) {
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << ": not one line: " << r.err;
  }
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << what << ": " << r.err;
}

class WrongTypes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("wrong-types");
    // A bundled workload, so results.json lists an input file (invocation.input_files).
    const auto r = run_cli({"cluster", "compare", "--workload", "pollux-6", "--jobs", "8", "--cluster", "16x4",
                            "--policies", "fifo,srtf", "--out", dir_->path("run")});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
};
TempDir* WrongTypes::dir_ = nullptr;

TEST_F(WrongTypes, DiffRefusesEveryWrongTypedFieldOfResultsJsonWithExit2) {
  const json results = json::parse(slurp(dir_->path("run/results.json")));
  const std::string good = dir_->path("run/results.json");
  const std::string bad = dir_->path("bad-results.json");
  size_t refused = 0, cases = 0;
  for_each_mutation(results, [&](const json& variant, const std::string& what) {
    std::ofstream(bad) << variant.dump();
    for (const auto& args :
         {std::vector<std::string>{"diff", good, bad}, std::vector<std::string>{"diff", bad, good}}) {
      const auto r = run_cli(args);
      expect_refused_or_fine(r, "diff " + what);
      refused += r.status == 2;
      ++cases;
    }
  });
  EXPECT_GT(cases, 20u);
  EXPECT_GT(refused, 0u);
  // The ones this issue found: a summary entry that is not an object, a tool that is a number.
  json j = results;
  j["summary"][0] = 42;
  std::ofstream(bad) << j.dump();
  auto r = run_cli({"diff", good, bad});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("summary[0]"), std::string::npos) << r.err;
  j = results;
  j["tool"] = 7;
  std::ofstream(bad) << j.dump();
  r = run_cli({"diff", good, bad});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
}

TEST_F(WrongTypes, ReportRefusesEveryWrongTypedFieldOfReportJsonAndResultsJsonWithExit2) {
  const std::string run = dir_->path("run");
  const std::string model_text = slurp(run + "/report.json");
  const std::string results_text = slurp(run + "/results.json");
  size_t refused = 0, cases = 0;
  auto check = [&](const std::string& file, const json& variant, const std::string& what) {
    std::ofstream(run + "/" + file) << variant.dump();
    const auto r = run_cli({"report", run});
    expect_refused_or_fine(r, "report " + file + " " + what);
    refused += r.status == 2;
    ++cases;
  };
  for_each_mutation(json::parse(model_text),
                    [&](const json& v, const std::string& what) { check("report.json", v, what); });
  std::ofstream(run + "/report.json") << model_text;
  for_each_mutation(json::parse(results_text),
                    [&](const json& v, const std::string& what) { check("results.json", v, what); });
  std::ofstream(run + "/results.json") << results_text;
  EXPECT_GT(cases, 50u);
  EXPECT_GT(refused, 0u);
  // The ones this issue found: a schema that is a number, an input file's size that is a string.
  json m = json::parse(model_text);
  m["schema"] = 1;
  std::ofstream(run + "/report.json") << m.dump();
  auto r = run_cli({"report", run});
  EXPECT_EQ(r.status, 2) << r.err;
  std::ofstream(run + "/report.json") << model_text;
  json res = json::parse(results_text);
  ASSERT_FALSE(res["invocation"]["input_files"].empty());
  res["invocation"]["input_files"][0]["bytes"] = "many";
  std::ofstream(run + "/results.json") << res.dump();
  r = run_cli({"report", run});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("invocation.input_files[0].bytes"), std::string::npos) << r.err;
  std::ofstream(run + "/results.json") << results_text;
  EXPECT_EQ(run_cli({"report", run}).status, 0);
}

// A run that hits a full disk: the file-size limit makes write(2) fail (EFBIG) as a full disk
// (ENOSPC) would. Exit status 3, one line naming the file, nothing left behind.
TEST(EnvironmentFailure, AFullDiskExits3AndLeavesNoOutput) {
  TempDir dir("full-disk");
  const auto r =
      run_process({"bash", "-c", "trap '' XFSZ; ulimit -f 40; exec \"$0\" \"$@\"", DMLKIT_BINARY, "cluster", "simulate",
                   "--workload", "synthetic", "--synthetic-jobs", "6", "--cluster", "2x4", "--out", dir.path("out")},
                  {}, 120);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_NE(r.err.find(dir.path("")), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path("out")));
  for (const auto& e : fs::directory_iterator(dir.path())) ADD_FAILURE() << "left behind: " << e.path();
}

TEST(EnvironmentFailure, TheManPageDocumentsTheExitStatuses) {
  const auto r = run_cli({"generate", "man"});
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t at = r.out.find(".SH \"EXIT STATUS\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(r.out.find("\n3\nThe environment failed", at), std::string::npos);
}

}  // namespace
}  // namespace dmlkit::testing
