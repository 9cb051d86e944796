// `dmlkit gnn compare`: one graph, partitioning, cluster and job; every (placement, scheduler)
// pair simulated for an epoch (or a documented number of steady-state iterations, extrapolated);
// epoch time, speed-ups, GPU and network utilisation; records for core/results.h and the HTML
// report (table, per-machine Gantt of a few iterations, the placements, explore's search).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/html_report.h"
#include "core/knobs.h"
#include "core/results.h"
#include "core/table.h"
#include "gnn/cluster.h"
#include "gnn/graph.h"
#include "gnn/job.h"
#include "gnn/partition.h"
#include "gnn/placement.h"
#include "gnn/simulate.h"

namespace dmlkit::gnn {

struct CompareOptions {
  std::string graph = "NetHEPT";
  std::string graph_format = "auto";
  uint64_t max_nodes = 0;  // a graph file's node limit (--max-nodes; 0: core/edge_file.h's default)
  int partitions = 4;
  std::string partitioner = "metis";
  ClusterOptions cluster;
  SamplerConfig sampler;
  JobConfig job;
  int epochs = 1;
  int sim_iterations = 40;  // at most this many iterations are simulated; the rest extrapolated
  int warmup = 2;           // iterations left out of the steady-state mean
  int cooldown = -1;        // trailing iterations left out of it (they drain the pipeline); -1 = prefetch + 1
  int gantt_iterations = 3;
  std::vector<std::string> placements{"colocate", "random", "greedy", "explore"};
  std::vector<std::string> schedulers{"fifo-fair", "online"};
  KnobValues placement_params, scheduler_params, partitioner_params;
  uint64_t seed = 1;
  int threads = 0;
  std::string data_dir;
};

struct PairRun {
  std::string placement, scheduler;
  std::string name() const { return placement + "+" + scheduler; }
  Placement where;
  PlacementOutcome search;  // explore's details
  SimResult sim;
  int simulated_iterations = 0;
  int total_iterations = 0;
  bool extrapolated = false;
  double iteration_mean_s = 0;  // steady state
  double total_s = 0;           // all epochs
  double epoch_s = 0;
  double gpu_utilization = 0;
  double network_utilization = 0;
};

struct Comparison {
  Graph graph;
  Partitioning parts;
  ClusterSpec cluster;
  Job job;
  std::vector<PairRun> runs;
  double partition_s = 0;  // wall time (not in results: printed only)
};

// Everything is checked before any simulation (unknown names and knobs, infeasible settings).
Comparison run_compare(const CompareOptions& o);

// T_other / T_this - 1 (the papers' speed-up) of `a` over `b`.
double speedup(const PairRun& a, const PairRun& b);

void add_records(Results& res, const Comparison& c, uint64_t seed);
TextTable summary_table(const Comparison& c);
TextTable placement_table(const Comparison& c);
TextTable spans_table(const PairRun& r);
HtmlReport report(const CompareOptions& o, const Comparison& c);

}  // namespace dmlkit::gnn
