// Influence experiment records (see results.h).
#include "influence/results.h"

#include <numeric>

namespace dmlkit::influence {

using nlohmann::ordered_json;

namespace {

// Cumulative reward of run r at the last step, summed in step order (as experiment_stats does).
double total(const AlgorithmRuns& a, size_t r) { return std::accumulate(a.reward[r].begin(), a.reward[r].end(), 0.0); }

ordered_json curve_json(const Curve& c) {
  ordered_json j;
  j["mean"] = c.mean;
  j["stddev"] = c.stddev;
  return j;
}

}  // namespace

void add_experiment_records(Results& results, const ExperimentResult& result,
                            const std::vector<AlgorithmSummary>& summary) {
  const AlgorithmRuns* oracle = oracle_runs(result);
  const bool has_fixed = !result.best_fixed.reward.empty();
  for (const AlgorithmRuns* a : runs_with_best_fixed(result))
    for (size_t r = 0; r < a->reward.size(); ++r) {
      ResultRecord& rec = results.add(a->name, r);
      const double t = total(*a, r);
      rec.metrics["total_activated"] = t;
      if (oracle) rec.metrics["regret_oracle_final"] = total(*oracle, r) - t;
      if (has_fixed) rec.metrics["regret_fixed_final"] = total(result.best_fixed, r) - t;
    }
  ordered_json algs = ordered_json::array();
  for (const auto& s : summary) {
    ordered_json x;
    x["name"] = s.name;
    x["reference"] = s.name == "best-fixed";
    x["activated_per_step_mean"] = s.mean_per_step;
    x["regret_fixed_growth_exponent"] = s.regret_fixed_growth ? ordered_json(*s.regret_fixed_growth) : ordered_json();
    ordered_json curves;
    curves["activated"] = curve_json(s.reward);
    curves["cumulative"] = curve_json(s.cumulative);
    if (s.regret_oracle) curves["regret_oracle"] = curve_json(*s.regret_oracle);
    if (s.regret_fixed) curves["regret_fixed"] = curve_json(*s.regret_fixed);
    x["curves"] = curves;
    algs.push_back(x);
  }
  auto& d = results.derived();
  d["algorithms"] = algs;
  d["mean_present_nodes"] = result.mean_present_nodes;
  d["mean_present_edges"] = result.mean_present_edges;
  if (!result.best_fixed_seeds.empty()) d["best_fixed_seeds"] = result.best_fixed_seeds;
}

}  // namespace dmlkit::influence
