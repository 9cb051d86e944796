// `dmlkit comm tune` end to end (tests/comm/tuner_test.cpp has the optimisers on analytic
// functions).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"

namespace dmlkit::testing {
namespace {

// The acceptance test: on a bundled case, auto-tuning ends within 5% of the grid-search
// optimum in at most 20 probes.
TEST(CommTuner, ByteSchedulerTuningWithin5PercentOfGridIn20Probes) {
  dmlkit::testing::TempDir dir("comm-tune");
  auto r =
      dmlkit::testing::run_cli({"comm", "tune", "--model", "vgg16", "--arch", "ps", "--workers", "4", "--bandwidth",
                                "10Gbps", "--probes", "20", "--grid", "6", "--out", dir.path("t"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(dmlkit::testing::slurp(dir.path("t/results.json")));
  ASSERT_EQ(j["records"].size(), 3u);  // default, bayes, grid
  EXPECT_EQ(j["records"][1]["name"], "bayes");
  EXPECT_EQ(j["records"][1]["detail"]["probes"].size(), 20u);
  EXPECT_EQ(j["records"][2]["detail"]["probes"].size(), 36u);
  EXPECT_LE(j["derived"]["bayes_gap_to_grid"].get<double>(), 0.05);
  EXPECT_GE(j["records"][1]["metrics"]["iteration_s"].get<double>(),
            j["derived"]["lower_bound_s"].get<double>() * (1 - 1e-9));
}

}  // namespace
}  // namespace dmlkit::testing
