// An influence experiment as core Results (docs/results-schema.md, "influence"): one record per
// (algorithm, run) -- the run index is the record's seed, its random stream is split r of the
// experiment seed -- with total_activated, regret_oracle_final and regret_fixed_final; the
// per-step curves and the weak-regret growth, which are over runs, go into "derived".
#pragma once
#include <vector>

#include "core/results.h"
#include "influence/experiment.h"
#include "influence/experiment_stats.h"

namespace dmlkit::influence {

// Appends the records of every algorithm (config order), then best-fixed's, and fills derived.
void add_experiment_records(Results& results, const ExperimentResult& result,
                            const std::vector<AlgorithmSummary>& summary);

}  // namespace dmlkit::influence
