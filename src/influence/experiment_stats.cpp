// Per-step statistics over runs (see experiment_stats.h).
#include "influence/experiment_stats.h"

#include <cmath>

namespace dmlkit::influence {
namespace {

std::vector<std::vector<double>> cumulative(const std::vector<std::vector<double>>& per_run) {
  auto out = per_run;
  for (auto& run : out)
    for (size_t t = 1; t < run.size(); ++t) run[t] += run[t - 1];
  return out;
}

std::vector<std::vector<double>> difference(const std::vector<std::vector<double>>& a,
                                            const std::vector<std::vector<double>>& b) {
  auto out = a;
  for (size_t r = 0; r < out.size(); ++r)
    for (size_t t = 0; t < out[r].size(); ++t) out[r][t] -= b[r][t];
  return out;
}

}  // namespace

Curve mean_curve(const std::vector<std::vector<double>>& per_run) {
  Curve c;
  if (per_run.empty()) return c;
  const size_t steps = per_run.front().size();
  const double runs = static_cast<double>(per_run.size());
  c.mean.assign(steps, 0.0);
  c.stddev.assign(steps, 0.0);
  for (size_t t = 0; t < steps; ++t) {
    double sum = 0;
    for (const auto& r : per_run) sum += r[t];
    const double mean = sum / runs;
    double sq = 0;
    for (const auto& r : per_run) sq += (r[t] - mean) * (r[t] - mean);
    c.mean[t] = mean;
    c.stddev[t] = per_run.size() > 1 ? std::sqrt(sq / (runs - 1)) : 0.0;
  }
  return c;
}

std::vector<const AlgorithmRuns*> runs_with_best_fixed(const ExperimentResult& result) {
  std::vector<const AlgorithmRuns*> all;
  for (const auto& a : result.algorithms) all.push_back(&a);
  if (!result.best_fixed.reward.empty()) all.push_back(&result.best_fixed);
  return all;
}

const AlgorithmRuns* oracle_runs(const ExperimentResult& result) {
  for (const auto& a : result.algorithms)
    if (a.name == "oracle") return &a;
  return nullptr;
}

std::vector<AlgorithmSummary> summarize(const ExperimentResult& result) {
  const AlgorithmRuns* oracle = oracle_runs(result);
  const bool has_fixed = !result.best_fixed.reward.empty();
  const std::vector<const AlgorithmRuns*> all = runs_with_best_fixed(result);

  std::vector<AlgorithmSummary> out;
  for (const AlgorithmRuns* a : all) {
    AlgorithmSummary s;
    s.name = a->name;
    s.reward = mean_curve(a->reward);
    const auto cum = cumulative(a->reward);
    s.cumulative = mean_curve(cum);
    if (oracle) s.regret_oracle = mean_curve(difference(cumulative(oracle->reward), cum));
    if (has_fixed) s.regret_fixed = mean_curve(difference(cumulative(result.best_fixed.reward), cum));
    if (!s.cumulative.mean.empty()) {
      s.total_mean = s.cumulative.mean.back();
      s.total_stddev = s.cumulative.stddev.back();
      s.mean_per_step = s.total_mean / static_cast<double>(s.cumulative.mean.size());
    }
    if (s.regret_fixed && s.regret_fixed->mean.size() >= 2) {
      const auto& r = s.regret_fixed->mean;
      const double half = r[r.size() / 2 - 1], end = r.back();
      if (half > 0 && end > 0) s.regret_fixed_growth = std::log2(end / half);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dmlkit::influence
