// core/results_diff.h on hand-made summaries: matching by (name, params), the spread rule, and the
// groups or metrics present on one side only.
#include <gtest/gtest.h>

#include "core/results_diff.h"

namespace dmlkit {
namespace {

using nlohmann::ordered_json;

ordered_json summary(ordered_json groups) {
  return ordered_json{{"schema_version", 2}, {"tool", "dmlkit"}, {"summary", std::move(groups)}};
}

TEST(ResultsDiff, SpreadRuleAndOneSidedGroups) {
  // fifo: 3 seeds each, sd 10: se = sqrt(100/3 + 100/3) = 8.165; a change of 20 > 16.33 is beyond.
  // srtf: a change of 10 < 16.33 is within. tiresias: one run each. drf only in A, optimus only in B.
  const auto a = summary({{{"name", "fifo"}, {"runs", 3}, {"metrics", {{"avg_jct_s", {{"mean", 100.0}, {"sd", 10.0}}}}}},
                          {{"name", "srtf"}, {"runs", 3}, {"metrics", {{"avg_jct_s", {{"mean", 100.0}, {"sd", 10.0}}}}}},
                          {{"name", "tiresias"}, {"runs", 1}, {"metrics", {{"avg_jct_s", {{"mean", 50.0}, {"sd", 0.0}}}}}},
                          {{"name", "drf"}, {"runs", 1}, {"metrics", {{"avg_jct_s", {{"mean", 1.0}, {"sd", 0.0}}}}}}});
  const auto b = summary({{{"name", "srtf"}, {"runs", 3}, {"metrics", {{"avg_jct_s", {{"mean", 110.0}, {"sd", 10.0}}}}}},
                          {{"name", "fifo"}, {"runs", 3}, {"metrics", {{"avg_jct_s", {{"mean", 80.0}, {"sd", 10.0}}}}}},
                          {{"name", "tiresias"}, {"runs", 1}, {"metrics", {{"avg_jct_s", {{"mean", 55.0}, {"sd", 0.0}}}}}},
                          {{"name", "optimus"}, {"runs", 1}, {"metrics", {{"avg_jct_s", {{"mean", 2.0}, {"sd", 0.0}}}}}}});
  const auto d = diff_results(a, b);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].name, "fifo");
  EXPECT_DOUBLE_EQ(d[0].change, -20.0);
  EXPECT_DOUBLE_EQ(d[0].change_pct, -20.0);
  EXPECT_EQ(d[0].verdict, "beyond spread");
  EXPECT_EQ(d[1].name, "srtf");
  EXPECT_EQ(d[1].verdict, "within spread");
  EXPECT_EQ(d[2].verdict, "one run");
  EXPECT_DOUBLE_EQ(d[2].change, 5.0);
  EXPECT_EQ(d[3].name, "drf");
  EXPECT_EQ(d[3].verdict, "only in A");
  EXPECT_EQ(d[4].name, "optimus");
  EXPECT_EQ(d[4].verdict, "only in B");
  const auto t = diff_table(d);
  EXPECT_EQ(t.rows()[0][6], "-20.0");
  EXPECT_EQ(t.rows()[3][4], "");  // no B value
}

TEST(ResultsDiff, GroupsAreMatchedByNameAndParams) {
  const auto a = summary({{{"name", "ewc"}, {"params", {{"angle_deg", 30}}}, {"runs", 2},
                           {"metrics", {{"forgetting", {{"mean", 0.1}, {"sd", 0.0}}}}}},
                          {{"name", "ewc"}, {"params", {{"angle_deg", 60}}}, {"runs", 2},
                           {"metrics", {{"forgetting", {{"mean", 0.3}, {"sd", 0.0}}}}}}});
  const auto b = summary({{{"name", "ewc"}, {"params", {{"angle_deg", 60}}}, {"runs", 2},
                           {"metrics", {{"forgetting", {{"mean", 0.3}, {"sd", 0.0}}}}}},
                          {{"name", "ewc"}, {"params", {{"angle_deg", 30}}}, {"runs", 2},
                           {"metrics", {{"forgetting", {{"mean", 0.2}, {"sd", 0.0}}}}}}});
  const auto d = diff_results(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].params["angle_deg"], 30);
  EXPECT_NEAR(d[0].change, 0.1, 1e-12);
  EXPECT_EQ(d[0].verdict, "beyond spread");  // no spread at all, and a change
  EXPECT_EQ(d[1].verdict, "within spread");  // equal
}

TEST(ResultsDiff, InputsThatDifferComeFirstAndDifferentWorkloadsAreFlagged) {
  auto run = [](ordered_json inputs, std::string sha) {
    ordered_json r = summary(ordered_json::array());
    r["command"] = "cluster compare";
    r["version"] = "0.1.0";
    r["inputs"] = std::move(inputs);
    r["invocation"] = {{"command_line", "dmlkit"},
                       {"input_files", {{{"path", "data/w.csv"}, {"bytes", 10}, {"sha256", std::move(sha)}}}}};
    return r;
  };
  const std::string h1(64, 'a'), h2(64, 'b');
  const auto a =
      run({{"workload", "pollux-6"}, {"profile", "default"}, {"policy_params", {{"optimus.oracle", "0"}}}}, h1);
  // The same run: nothing differs, no warning.
  const auto same = diff_inputs(a, a);
  EXPECT_TRUE(same.differences.empty());
  EXPECT_FALSE(same.workloads_differ);
  // A knob only: named by its dotted path; the workload is the same.
  const auto knob = diff_inputs(
      a, run({{"workload", "pollux-6"}, {"profile", "default"}, {"policy_params", {{"optimus.oracle", "1"}}}}, h1));
  ASSERT_EQ(knob.differences.size(), 1u);
  EXPECT_EQ(knob.differences[0].field, "inputs.policy_params.optimus.oracle");
  EXPECT_EQ(knob.differences[0].a, "0");
  EXPECT_EQ(knob.differences[0].b, "1");
  EXPECT_FALSE(knob.workloads_differ);
  // Another workload, profile and data file: all listed, the workload flagged; a field on one side
  // only shows "(none)".
  const auto other = diff_inputs(a, run({{"workload", "pollux-3"}, {"profile", "pollux"}, {"round_s", 60}}, h2));
  EXPECT_TRUE(other.workloads_differ);
  EXPECT_NE(other.workload_reason.find("inputs.workload"), std::string::npos) << other.workload_reason;
  std::vector<std::string> fields;
  for (const auto& d : other.differences) fields.push_back(d.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"inputs.workload", "inputs.profile", "inputs.policy_params.optimus.oracle",
                                      "inputs.round_s", "file data/w.csv"}));
  EXPECT_EQ(other.differences[2].b, "(none)");
  EXPECT_EQ(other.differences[4].a, "sha256:aaaaaaaaaaaa");
  // Only the file's contents differ: still a different workload.
  const auto file = diff_inputs(a, run(a["inputs"], h2));
  EXPECT_TRUE(file.workloads_differ);
  EXPECT_NE(file.workload_reason.find("data/w.csv"), std::string::npos);
  EXPECT_EQ(input_diff_json(file)["differences"].size(), 1u);
}

}  // namespace
}  // namespace dmlkit
