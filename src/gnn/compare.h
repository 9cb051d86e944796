// The run entry of `dmlkit gnn compare` (docs/gnn.md): one graph, partitioning, cluster and job;
// every (placement, scheduler) pair simulated for an epoch (or a documented number of
// steady-state iterations, extrapolated); epoch time, speed-ups, GPU and network utilisation.
// CompareOptions is the spec (every field documented; it writes its own inputs), check(spec)
// refuses bad input before any work (dmlkit::Error naming the field), run(spec, progress) returns
// the Results, the report (table, per-machine Gantt of a few iterations, the placements,
// explore's search) and the CSV tables (comm/run.h's RunOutput) without writing anything.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "comm/run.h"
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

struct Comparison;  // below

struct CompareOptions {
  std::string graph = "NetHEPT";      // NetHEPT, cora, citeseer, pubmed, rmat:nodes=N,edge_factor=F, or a file
  std::string graph_format = "auto";  // a file's format: auto | header (NetHEPT's) | edges (SNAP text)
  uint64_t max_nodes = 0;             // a graph file's node limit (0: core/edge_file.h's default)
  int partitions = 4;                 // graph partitions = graph-store servers (>= 1)
  std::string partitioner = "metis";  // `gnn list`: metis, random, hash
  // The machines, GPUs, NICs (bytes/s, seconds), racks and store machines (cluster.h); an empty
  // cluster.gavel_path means <data_dir>/gavel-throughputs/simulation_throughputs.json.
  ClusterOptions cluster;
  SamplerConfig sampler;     // fanouts, batch (seeds per trainer and iteration), train fraction (sampler.h)
  JobConfig job;             // model size, compute and transfer costs, sync, prefetch (job.h)
  int epochs = 1;            // epochs (>= 1)
  int sim_iterations = 40;   // at most this many iterations are simulated (>= 2); the rest extrapolated
  int warmup = 2;            // iterations left out of the steady-state mean (< sim_iterations)
  int cooldown = -1;         // trailing iterations left out of it (they drain the pipeline); -1 = prefetch + 1
  int gantt_iterations = 3;  // iterations drawn in the report's Gantt
  std::vector<std::string> placements{"colocate", "random", "greedy", "explore"};  // `gnn list`
  std::vector<std::string> schedulers{"fifo-fair", "online"};                      // `gnn list`
  // Knobs, "<policy>.<knob>" -> value (`gnn list -v`); default none.
  KnobValues placement_params, scheduler_params, partitioner_params;
  uint64_t seed = 1;  // sampling, partitioning, random placement, explore
  int threads = 0;    // R-MAT generation, the metis pre-step and sampling (0 = all cores); results do not depend on it
  std::string data_dir;  // bundled data folder (graphs, Gavel throughputs); "" = core/data_dir.h's default

  // The files and folders the run reads (an output folder must not be or hold one of them).
  std::vector<std::string> input_paths() const;
  // Writes results.json's inputs (with what the run resolved: graph size, cut, store machines, ...).
  void write_inputs(Results& results, const Comparison& comparison) const;
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

// Every check that needs no data (ranges, unknown names and knobs); Error naming the field.
void check(const CompareOptions& o);
// Checks, loads and partitions the graph and simulates every pair; `progress` (may be null)
// advances per pair.
Comparison run_compare(const CompareOptions& o, ProgressBar* progress = nullptr);
// run_compare plus the Results, the report and the tables of the output folder.
comm::RunOutput run(const CompareOptions& o, ProgressBar* progress = nullptr);

// T_other / T_this - 1 (the papers' speed-up) of `a` over `b`.
double speedup(const PairRun& a, const PairRun& b);

void add_records(Results& res, const Comparison& c, uint64_t seed);
TextTable summary_table(const Comparison& c);
TextTable placement_table(const Comparison& c);
TextTable spans_table(const PairRun& r);
HtmlReport report(const CompareOptions& o, const Comparison& c);

}  // namespace dmlkit::gnn
