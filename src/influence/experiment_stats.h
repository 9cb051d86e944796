// Curves and summary numbers of an experiment: per-step mean and standard deviation over runs of
// the activated users, the cumulative reward, the regret against the per-step oracle and the weak
// regret against the best fixed seed set (cumulative reference reward minus cumulative reward,
// computed per run, then averaged).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "influence/experiment.h"

namespace dmlkit::influence {

struct Curve {
  std::vector<double> mean;
  std::vector<double> stddev;  // sample standard deviation over runs (0 with one run)
};

struct AlgorithmSummary {
  std::string name;
  Curve reward;
  Curve cumulative;
  std::optional<Curve> regret_oracle;       // when "oracle" ran
  std::optional<Curve> regret_fixed;        // when the best fixed set was computed
  double total_mean = 0, total_stddev = 0;  // total activated users over the run
  double mean_per_step = 0;
  // log2(R(T) / R(T/2)) of the mean weak regret: below 1 means it grows sublinearly over the
  // second half of the run; empty when R(T/2) <= 0 or R(T) <= 0.
  std::optional<double> regret_fixed_growth;
};

// The runs of every algorithm (config order), then "best-fixed" when it was computed.
std::vector<const AlgorithmRuns*> runs_with_best_fixed(const ExperimentResult& result);
// The runs of "oracle", or null when it did not run.
const AlgorithmRuns* oracle_runs(const ExperimentResult& result);

// One summary per algorithm (config order), then "best-fixed" when it was computed.
std::vector<AlgorithmSummary> summarize(const ExperimentResult& result);

// Mean and sample standard deviation over runs, per step.
Curve mean_curve(const std::vector<std::vector<double>>& per_run);

}  // namespace dmlkit::influence
