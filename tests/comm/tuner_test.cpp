// Tests of the Bayesian optimiser and grid search, on analytic functions and on a bundled case.
#include <gtest/gtest.h>

#include <cmath>

#include "comm/tuner.h"
#include "core/error.h"

using namespace dmlkit;
using namespace dmlkit::comm;

TEST(CommTuner, GridSearchVisitsEveryPoint) {
  int calls = 0;
  auto r = grid_search(
      {{"a", 1, 100, true}, {"b", 0, 1, false}},
      [&](const std::vector<double>& x) {
        ++calls;
        return std::fabs(std::log10(x[0]) - 1) + std::fabs(x[1] - 0.5);
      },
      5);
  EXPECT_EQ(calls, 25);
  EXPECT_NEAR(r.best_probe().x[0], 10, 1e-9);
  EXPECT_NEAR(r.best_probe().x[1], 0.5, 1e-9);
}

TEST(CommTuner, BayesFindsTheMinimumOfASmoothBowlIn20Probes) {
  auto f = [](const std::vector<double>& x) {
    const double a = std::log(x[0] / 12.0), b = std::log(x[1] / 60.0);
    return 1.0 + a * a + 0.5 * b * b;
  };
  std::vector<TuneDimension> dims{{"p", 1, 128, true}, {"c", 4, 256, true}};
  auto r = bayes_optimize(dims, f, BayesOptions{}, Rng(7));
  EXPECT_EQ(r.probes.size(), 20u);
  EXPECT_LT(r.best_probe().value, 1.05);
  // Same seed, same probes.
  auto again = bayes_optimize(dims, f, BayesOptions{}, Rng(7));
  for (size_t i = 0; i < r.probes.size(); ++i) EXPECT_EQ(r.probes[i].x, again.probes[i].x);
}

TEST(CommTuner, BadRangesAreErrors) {
  auto f = [](const std::vector<double>&) { return 0.0; };
  EXPECT_THROW(grid_search({{"p", 0, 10, true}}, f, 4), Error);
  EXPECT_THROW(grid_search({{"p", 5, 1, false}}, f, 4), Error);
  EXPECT_THROW(bayes_optimize({}, f, BayesOptions{}, Rng(1)), Error);
}
