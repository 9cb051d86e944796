// Output of `cluster compare --experiment`: the results (core/results.h records per policy and
// seed, with the experiment as inputs) and the report page fed from them.
#pragma once
#include <string>
#include <vector>

#include "cluster/model/cluster_spec.h"
#include "cluster/workload/experiment.h"
#include "core/html_report.h"
#include "core/results.h"

namespace dmlkit::cluster {

// One record per run (add_run_record), inputs describing the experiment.
Results experiment_results(const Experiment& e, const ClusterSpec& cluster, const std::vector<ExperimentRun>& runs);
// report.html: facts, the summary over seeds, average JCT and makespan per seed, every record.
HtmlReport experiment_report(const Experiment& e, const ClusterSpec& cluster, const Results& results);

}  // namespace dmlkit::cluster
