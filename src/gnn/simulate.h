// The iteration simulator of distributed GNN training on SimGrid (spec A.3, our reconstruction).
//
// Platform: one SimGrid host per machine with a full-duplex NIC (two links, up and down, of the
// machine's bandwidth and the per-hop latency) on one non-blocking switch; with racks, traffic
// between racks also crosses both racks' uplinks. Every transfer is a SimGrid flow, so concurrent
// flows share links through SimGrid's bandwidth-sharing model (CM02, no TCP window cap).
//
// Per trainer t and iteration i, the task DAG:
//   sample(t,i)   on t's sampler machine: takes sampler_threads cores of the machine's free pool
//                 (cores not reserved by trainers and PS shards) for the sampling CPU time, while
//                 the sampled structure of remote partitions is fetched (flows store -> sampler);
//                 it may start once sample(t,i-1) is done and compute(t,i-1-prefetch) is done;
//   transfer(t,i) after sample(t,i): the input nodes' features from every partition's store and
//                 the sampled blocks from the sampler, to t's machine (flows);
//   compute(t,i)  on t's GPU after transfer(t,i) and sync(i-1);
//   sync(i)       after every compute(.,i): ring all-reduce among the trainers (each sends
//                 2(N-1)/N of the gradients to its ring successor) or push to and pull from the
//                 PS shards. Iteration i ends when sync(i) ends.
// The scheduler (scheduler.h) orders the sampling tasks waiting for cores and decides how flows
// share bandwidth. Flows whose ends share a machine cost nothing (local memory) [A].
//
// SimGrid allows one engine per process: simulate() runs in a forked child
// (core::run_in_child_rethrowing) and reads the result back.
#pragma once
#include <string>
#include <vector>

#include "gnn/cluster.h"
#include "gnn/job.h"
#include "gnn/scheduler.h"

namespace dmlkit::gnn {

struct SimConfig {
  int iterations = 20;        // simulated iterations (at most the job's sampled iterations)
  int gantt_from = 1;         // first iteration whose task and flow spans are kept
  int gantt_iterations = 3;   // 0 = keep none
  bool keep_all = false;      // keep every span (tests)
};

enum class SpanKind { sample, compute, sync, structure_flow, feature_flow, block_flow, sync_flow };
const char* to_string(SpanKind k);

struct Span {
  SpanKind kind;
  int machine;    // tasks: where they ran; flows: the destination
  int source;     // flows: the source machine (-1 for tasks)
  int trainer;    // -1 for sync
  int iteration;
  int partition;  // feature/structure flows: the partition; else -1
  double bytes;   // flows
  double start_s, end_s;
};

struct SimResult {
  std::vector<double> iteration_end_s;   // when sync(i) ended
  double gpu_busy_s = 0;                 // compute time summed over trainers
  double network_bytes = 0;              // bytes that crossed a NIC
  double local_bytes = 0;                // bytes of transfers within one machine (not simulated)
  double nic_capacity_Bps = 0;           // sum of the machines' NIC bandwidths (one direction)
  std::vector<Span> spans;
  // Instrumentation (every simulated flow, not only the kept spans):
  std::vector<std::string> link_names;   // "m3_up", "m3_down", "rack0_up", ...
  std::vector<double> link_capacity_Bps;
  std::vector<double> link_bytes;        // bytes carried by each link over the run
  // Per flow kind (index = SpanKind; tasks stay 0): flows, and the summed time from a flow's
  // data being ready to its first byte moving (waiting) and to its last (duration).
  std::vector<double> flow_count, flow_wait_s, flow_duration_s;
  double makespan_s() const { return iteration_end_s.empty() ? 0 : iteration_end_s.back(); }
  // Mean duration of iterations warmup .. end-1-cooldown (the first iteration starts at 0). The
  // last iterations of a simulated window drain the pipeline (no later iteration's sampling and
  // transfers compete with theirs), so a steady-state estimate leaves them out (cooldown);
  // the window keeps at least one iteration (cooldown, then warmup, shrink).
  double mean_iteration_s(int warmup, int cooldown = 0) const;
  // Link bytes / (capacity x makespan); the busiest link (-1 without links).
  double link_utilization(int link) const;
  int busiest_link() const;
};

// Validates, then simulates in a forked child. Errors in the input raise dmlkit::Error here.
SimResult simulate(const ClusterSpec& cluster, const Job& job, const Placement& placement, const Scheduler& scheduler,
                   const SimConfig& cfg);
// The same in this process (only once per process: SimGrid's single engine).
SimResult simulate_in_process(const ClusterSpec& cluster, const Job& job, const Placement& placement,
                              const Scheduler& scheduler, const SimConfig& cfg);

}  // namespace dmlkit::gnn
