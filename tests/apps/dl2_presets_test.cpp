// DL2's published direction on its two presets with the bundled default models, through the CLI as
// a user runs it (`cluster compare --experiment dl2-96|dl2-500 --policies dl2,drf-dl2,optimus-dl2`
// on every evaluation seed): the learned scheduler beats its SL teacher (DRF) and Optimus on
// average JCT, and (ours) how close it comes to the static rules of fixed-dl2. The defaults are
// [A] ours (the column-shared network at a wider window, docs/reproduction-dl2.md); the code's
// networks (`dl2.model=dl2-96|dl2-500`) beat DRF but not Optimus, which the last test pins so that
// a change of either shows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace dmlkit::testing {
namespace {

nlohmann::json compare(const TempDir& dir, const std::string& preset, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "cluster", "compare",        "--experiment", preset, "--policies", "dl2,drf-dl2,optimus-dl2,fixed-dl2",
      "--out",   dir.path(preset), "--format",     "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(Dl2Presets, DefaultModelsBeatTheirTeacherAndOptimus) {
  TempDir dir("dl2-presets");
  for (const char* preset : {"dl2-96", "dl2-500"}) {
    const auto j = compare(dir, preset, {});
    ASSERT_TRUE(j.contains("records")) << preset;
    const double dl2 = avg_jct(j, "dl2"), drf = avg_jct(j, "drf-dl2"), optimus = avg_jct(j, "optimus-dl2");
    ASSERT_GT(dl2, 0.0) << preset;
    // Measured: dl2-96 32,969 s against 55,733 (DRF) and 38,054 (Optimus); dl2-500 29,031 against
    // 51,480 and 34,074. The margin over Optimus is asserted at 10%, beyond the spread of a mean.
    EXPECT_LT(dl2, 0.9 * optimus) << preset;
    EXPECT_LT(dl2, 0.7 * drf) << preset;
    // What the default models learned is close to a static rule ([A] fixed-dl2: one worker and 16
    // PSs for every job; docs/reproduction-dl2.md): measured 33,059 s on dl2-96 and 29,312 s on
    // dl2-500, 0.3% and 1.0% above dl2. Pinned both ways, so that a model that learns more (or
    // less) than the rule shows.
    const double fixed = avg_jct(j, "fixed-dl2");
    EXPECT_LT(dl2, fixed) << preset;
    EXPECT_LT(fixed, 1.03 * dl2) << preset;
    // The report says which model dl2 ran.
    EXPECT_NE(slurp(dir.path(preset) + "/report.html").find(std::string("dl2.model=") + preset + "-shared-w"),
              std::string::npos)
        << preset;
  }
}

// An oracle static rule ([A] fixed-dl2 with fixed.rule=best-speed: every job its type's fastest
// (PSs, workers) by the true speed, as optimus-dl2 also knows it) beats the trained models: measured
// 29,967 s on dl2-96 and 25,899 s on dl2-500, 9.1% and 10.8% below dl2, on every seed
// (docs/reproduction-dl2.md). Pinned so that a model which closes the gap shows.
TEST(Dl2Presets, AnOracleStaticRuleStillBeatsTheTrainedModels) {
  TempDir dir("dl2-oracle-rule");
  for (const char* preset : {"dl2-96", "dl2-500"}) {
    const auto r = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "dl2,fixed-dl2",
                            "--policy-param", "fixed.rule=best-speed", "--out", dir.path(preset), "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_LT(avg_jct(j, "fixed-dl2"), 0.95 * avg_jct(j, "dl2")) << preset;
    // The report lists the command line's knob and the preset's (dl2.model) of the policies that ran.
    const std::string report = slurp(dir.path(preset) + "/report.html");
    EXPECT_NE(report.find("fixed.rule=best-speed"), std::string::npos) << preset;
    EXPECT_NE(report.find("dl2.model=" + std::string(preset) + "-shared-w"), std::string::npos) << preset;
  }
}

// The report's "Policy parameters" are the knobs that a policy that ran declares (its registry
// entry), whatever their prefix: dl2.placement is drf-dl2's; the preset's dl2.model (the dl2
// policy's, which did not run) is left out.
TEST(Dl2Presets, ReportListsTheKnobsOfThePoliciesThatRan) {
  TempDir dir("dl2-report-knobs");
  const auto r = run_cli({"cluster", "compare", "--experiment", "dl2-96", "--policies", "drf-dl2", "--seeds", "1",
                          "--policy-param", "dl2.placement=fitting", "--out", dir.path("r")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string report = slurp(dir.path("r/report.html"));
  EXPECT_NE(report.find("Policy parameters"), std::string::npos);
  EXPECT_NE(report.find("dl2.placement=fitting"), std::string::npos);
  EXPECT_EQ(report.find("dl2.model="), std::string::npos);
}

TEST(Dl2Presets, TheCodeNetworksBeatDrfButNotOptimus) {
  TempDir dir("dl2-code");
  for (const auto& [preset, model] : {std::pair{"dl2-96", "dl2-96"}, std::pair{"dl2-500", "dl2-500"}}) {
    const auto j = compare(dir, preset, {"--policy-param", std::string("dl2.model=") + model});
    ASSERT_TRUE(j.contains("records")) << preset;
    const double dl2 = avg_jct(j, "dl2");
    EXPECT_LT(dl2, avg_jct(j, "drf-dl2")) << preset;
    EXPECT_GT(dl2, avg_jct(j, "optimus-dl2")) << preset;
  }
}

}  // namespace
}  // namespace dmlkit::testing
