// The experiment runner: determinism, common realizations across algorithms, the hindsight
// reference, node churn, statistics, and option validation.
#include <gtest/gtest.h>

#include "core/error.h"
#include "influence/experiment.h"
#include "influence/experiment_stats.h"
#include "influence/generators.h"

namespace dmlkit::influence {
namespace {

EdgeList experiment_graph() {
  Rng rng(8);
  return preferential_attachment(200, 2, rng);
}

ExperimentConfig config() {
  ExperimentConfig c;
  c.k = 4;
  c.steps = 40;
  c.runs = 2;
  c.seed = 5;
  c.dynamics.model = ProbabilityModel::Trivalency;
  c.algorithms = {"rsb", "random", "static-greedy", "cucb", "epsilon-greedy", "oracle"};
  c.algorithm_params["oracle.epsilon"] = "0.3";
  c.hindsight_rr_sets = 20000;
  return c;
}

}  // namespace

TEST(InfluenceExperiment, DeterministicPerSeedAndIndependentOfTheAlgorithmList) {
  const EdgeList g = experiment_graph();
  const ExperimentResult a = run_experiment(g, config());
  const ExperimentResult b = run_experiment(g, config());
  ASSERT_EQ(a.algorithms.size(), 6u);
  for (size_t i = 0; i < a.algorithms.size(); ++i) EXPECT_EQ(a.algorithms[i].reward, b.algorithms[i].reward);
  EXPECT_EQ(a.best_fixed.reward, b.best_fixed.reward);
  // RSB alone sees the same networks and realizations, so its rewards do not change.
  ExperimentConfig only = config();
  only.algorithms = {"rsb"};
  const ExperimentResult c = run_experiment(g, only);
  EXPECT_EQ(c.algorithms[0].reward, a.algorithms[0].reward);
  EXPECT_EQ(c.best_fixed.reward, a.best_fixed.reward);
  ExperimentConfig other = config();
  other.seed = 6;
  EXPECT_NE(run_experiment(g, other).algorithms[1].reward, a.algorithms[1].reward);
}

TEST(InfluenceExperiment, InformedReferencesBeatRandomSeeds) {
  const EdgeList g = experiment_graph();
  const ExperimentResult r = run_experiment(g, config());
  const auto summary = summarize(r);
  ASSERT_EQ(summary.size(), 7u);
  EXPECT_EQ(summary.back().name, "best-fixed");
  auto total = [&](const std::string& name) {
    for (const auto& s : summary)
      if (s.name == name) return s.total_mean;
    return -1.0;
  };
  EXPECT_GT(total("oracle"), 1.3 * total("random"));
  EXPECT_GT(total("best-fixed"), 1.3 * total("random"));
  EXPECT_GT(total("static-greedy"), 1.3 * total("random"));
  for (const auto& s : summary) {
    ASSERT_TRUE(s.regret_oracle.has_value());
    ASSERT_TRUE(s.regret_fixed.has_value());
    EXPECT_EQ(s.reward.mean.size(), 40u);
  }
  EXPECT_EQ(summary[5].regret_oracle->mean.back(), 0.0);  // the oracle against itself
  EXPECT_EQ(summary[6].regret_fixed->mean.back(), 0.0);
}

TEST(InfluenceExperiment, NodeChurnOnlySeedsPresentNodes) {
  const EdgeList g = experiment_graph();
  ExperimentConfig c = config();
  c.dynamics.node_churn = 0.2;
  c.dynamics.node_presence = 0.5;
  c.dynamics.edge_churn = 0.1;
  c.dynamics.edge_presence = 0.7;
  c.dynamics.model = ProbabilityModel::WeightedCascade;
  // The runner throws std::logic_error if an algorithm returns an absent or repeated seed.
  const ExperimentResult r = run_experiment(g, c);
  EXPECT_NEAR(r.mean_present_nodes[0], 100, 20);
}

TEST(InfluenceExperimentStats, CurvesAndRegretsByHand) {
  ExperimentResult r;
  r.algorithms = {{"oracle", {{4, 4, 4, 4}, {6, 6, 6, 6}}}, {"x", {{1, 2, 3, 4}, {3, 2, 1, 0}}}};
  r.best_fixed = {"best-fixed", {{3, 3, 3, 3}, {3, 3, 3, 3}}};
  const auto s = summarize(r);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].reward.mean, (std::vector<double>{2, 2, 2, 2}));
  EXPECT_DOUBLE_EQ(s[1].reward.stddev[0], std::sqrt(2.0));
  EXPECT_EQ(s[1].cumulative.mean, (std::vector<double>{2, 4, 6, 8}));
  // Oracle cumulative (4, 8, 12, 16) and (6, 12, 18, 24); x (1, 3, 6, 10) and (3, 5, 6, 6).
  EXPECT_EQ(s[1].regret_oracle->mean, (std::vector<double>{3, 6, 9, 12}));
  EXPECT_EQ(s[1].regret_fixed->mean, (std::vector<double>{1, 2, 3, 4}));
  ASSERT_TRUE(s[1].regret_fixed_growth.has_value());
  EXPECT_DOUBLE_EQ(*s[1].regret_fixed_growth, 1.0);  // R(4)/R(2) = 2: linear
  EXPECT_DOUBLE_EQ(s[1].total_mean, 8);
}

TEST(InfluenceExperiment, ValidatesOptions) {
  const EdgeList g = experiment_graph();
  ExperimentConfig c = config();
  c.algorithms = {"rsb", "nope"};
  EXPECT_THROW(run_experiment(g, c), Error);
  c = config();
  c.algorithms = {"rsb", "rsb"};
  EXPECT_THROW(run_experiment(g, c), Error);
  c = config();
  c.k = 1000;
  EXPECT_THROW(run_experiment(g, c), Error);
  c = config();
  c.algorithm_params["rsb.gamma"] = "0";
  EXPECT_THROW(run_experiment(g, c), Error);
  c = config();
  c.steps = 0;
  EXPECT_THROW(run_experiment(g, c), Error);
}

}  // namespace dmlkit::influence
