// The run entry of `dmlkit influence run` (influence/run.h): check() refuses bad fields naming
// them, run() returns the Results, tables and report in memory, and the inputs name every knob.
#include "influence/run.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace dmlkit::influence {
namespace {

RunSpec small_spec() {
  RunSpec s;
  s.graph = "er:nodes=40,degree=3";
  s.k = 2;
  s.steps = 6;
  s.runs = 2;
  s.algorithms = {"rsb", "random", "oracle"};
  s.hindsight_rr_sets = 500;
  return s;
}

void expect_check_error(const RunSpec& s, const std::string& field) {
  try {
    check(s);
    ADD_FAILURE() << "no error for " << field;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(InfluenceRunSpec, CheckNamesTheField) {
  EXPECT_NO_THROW(check(small_spec()));
  RunSpec s = small_spec();
  s.k = 0;
  expect_check_error(s, "--k");
  s = small_spec();
  s.steps = 0;
  expect_check_error(s, "--steps");
  s = small_spec();
  s.runs = 0;
  expect_check_error(s, "--runs");
  s = small_spec();
  s.dynamics = "nope";
  expect_check_error(s, "nope");
  s = small_spec();
  s.graph_format = "nope";
  expect_check_error(s, "nope");
  s = small_spec();
  s.algorithms = {"rsb", "magic"};
  expect_check_error(s, "--algorithms");
  s = small_spec();
  s.algorithm_params = {{"rsb.gamma", "2"}};
  expect_check_error(s, "rsb.gamma");
  s = small_spec();
  s.algorithm_params = {{"rsb.typo", "2"}};
  expect_check_error(s, "rsb.typo");
  s = small_spec();
  s.node_churn = 0.1;  // churn needs presence below 1
  expect_check_error(s, "--node-churn");
}

TEST(InfluenceRunSpec, RunReturnsResultsWithoutWritingFiles) {
  RunSpec s = small_spec();
  s.algorithm_params = {{"rsb.gamma", "0.3"}};
  double last = 0;
  const RunOutput o = run(s, [&](double done, const std::string&) { last = done; });
  EXPECT_EQ(last, 12.0);
  EXPECT_EQ(o.results.records().size(), 8u);  // (3 algorithms + best-fixed) x 2 runs
  const auto& in = o.results.inputs();
  EXPECT_EQ(in["graph_path"], "er:nodes=40,degree=3");
  EXPECT_EQ(in["algorithm_params"]["rsb_gamma"], 0.3);
  EXPECT_EQ(in["algorithm_params"]["max_rr_sets"], 20'000'000);
  EXPECT_EQ(in["algorithm_params"].size(), 7u);
  EXPECT_EQ(o.steps.rows().size(), 4u * 6);
  EXPECT_NE(o.summary_text("table").find("rsb"), std::string::npos);
  EXPECT_FALSE(o.notes.empty());
  // Deterministic for a seed.
  EXPECT_EQ(run(s).results.json_text(), o.results.json_text());
}

TEST(InfluenceRunSpec, WeightedCascadeChurnsUnlessSet) {
  RunSpec s = small_spec();
  s.dynamics = "weighted-cascade";
  EXPECT_EQ(s.experiment().dynamics.edge_churn, 0.05);
  s.edge_churn = 0.0;
  EXPECT_EQ(s.experiment().dynamics.edge_churn, 0.0);
  EXPECT_EQ(s.experiment().dynamics.edge_presence, 0.9);
}

}  // namespace
}  // namespace dmlkit::influence
