// OASiS experiment presets (experiments/<name>.yaml with `engine: oasis`): the cluster (worker and
// PS server pools, or one shared pool), the horizon, the workload ranges, the methods and seeds,
// and the sweeps over load and cluster size the report plots. `dmlkit cluster compare --experiment
// oasis-sim` runs one (docs/oasis.md has the file format).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/oasis/lp_bound.h"
#include "cluster/oasis/method.h"
#include "cluster/oasis/oasis_workload.h"
#include "core/html_report.h"
#include "core/results.h"
#include "core/table.h"

namespace dmlkit::cluster::oasis {

struct OasisExperiment {
  std::string name;
  std::string description;
  std::string path;
  std::vector<uint64_t> seeds = {1};
  std::vector<std::string> methods;
  std::map<std::string, std::string> params;  // --policy-param knobs
  int horizon_slots = 300;
  int worker_servers = 40;
  int ps_servers = 10;
  ResourceVec worker_capacity{8, 32, 128, 10};
  ResourceVec ps_capacity{0, 32, 128, 10};
  bool shared_pool = false;
  std::vector<double> loads;        // sweep at the preset's cluster size (empty: only workload.load)
  std::vector<int> server_counts;   // sweep of total servers at workload.load, pools in the same ratio
  bool lp_bound = true;
  int lp_max_iterations = 100;
  OasisWorkloadSpec workload;
};

// Parses the file; Error(file, line, field, ...) on bad content.
OasisExperiment load_oasis_experiment(const std::string& path);

// One (load, total servers) point of the sweeps.
struct SweepPoint {
  double load = 1;
  int servers = 50;
};
std::vector<SweepPoint> sweep_points(const OasisExperiment& e);
OasisCluster experiment_cluster(const OasisExperiment& e, int total_servers);

struct OasisRunRecord {
  std::string method;
  uint64_t seed = 0;
  SweepPoint point;
  OasisMetrics metrics;
  double theoretical_ratio = 0;
  std::vector<std::string> log;
  LpBound bound;  // of the point and seed (same for every method)
};

// Every method on every point and seed; items (point, seed) run on up to `threads` threads; the
// result is identical for any number of threads. `on_item` is called (serialised) per item.
std::vector<OasisRunRecord> run_oasis_experiment(const OasisExperiment& e, const std::string& data_dir, int threads,
                                                 const std::function<void()>& on_item = {});

// results.json records: name = method, params {load, servers}, the metrics, the bound.
Results oasis_results(const OasisExperiment& e, const std::vector<OasisRunRecord>& runs);
// report.html: facts, the summary table, total utility vs load and vs cluster size (mean over seeds,
// with min/max bands as extra series), the competitive ratios, every record.
HtmlReport oasis_report(const OasisExperiment& e, const Results& results);
// The printed table: per method and point, total utility mean +- sd, admitted, completed, ratio.
TextTable oasis_summary_table(const Results& results);

}  // namespace dmlkit::cluster::oasis
