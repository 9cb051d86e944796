// Iteration-level simulation of synchronous data-parallel training on SimGrid (S4U).
//
// Platform (built programmatically, no XML): W worker hosts and, for PS, M server hosts; each host
// has a NIC made of two SimGrid links (up and down: full duplex) of the configured bandwidth and
// per-hop latency, all attached to one switch (non-blocking, or a shared backplane link when
// switch_bandwidth_Bps > 0). A host-to-host route is [src NIC up, (backplane), dst NIC down];
// with racks > 1, a route between racks also crosses the source rack's uplink (up) and the
// destination rack's uplink (down), which may be oversubscribed (uplink_bandwidth_Bps).
// Concurrent transfers share links through SimGrid's bandwidth-sharing model (CM02, no TCP
// window cap), so there is no hand-written sharing model here.
//
// Semantics per iteration: forward runs layer by layer on one GPU stream; layer l of iteration
// k>0 waits until its parameters were synchronised after iteration k-1; backward runs from the
// last layer to the first and each layer with parameters makes its gradient ready; the scheduler
// (scheduler.h) decides what is synchronised when. A transfer is a PS push+pull (every worker
// pushes its bytes to the server(s) holding the key, then pulls them back; MXNet key->server
// rule) or a ring all-reduce (2(N-1) steps, each moving bytes/N from every worker to its ring
// neighbour at once). Workers are homogeneous and in lockstep, so one compute timeline stands for
// all of them (every worker's transfers are simulated).
//
// SimGrid allows one engine per process: simulate() runs each simulation in a forked child and
// reads the result back through a pipe, so any number of simulations can run in one process.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "comm/network.h"
#include "comm/scheduler.h"
#include "comm/workload.h"

namespace dmlkit::comm {

class PsControl;  // comm/ps_control.h

struct SimOptions {
  int iterations = 4;  // simulated iterations; the first `warmup` are not reported
  int warmup = 1;
  bool timeline = true;  // keep the spans of the last iteration
  // PS only: who decides where each transfer's bytes go and drives stragglers and migrations
  // (ps/); nullptr = MXNet's rule, no server CPU (comm/ps_control.h). Not owned; in-process runs
  // only (simulate_in_process), since the controller's state stays in the process that ran it.
  PsControl* ps_control = nullptr;
  void validate() const;
};

// One bar of the Gantt timeline: row 0 is the GPU (compute), rows 1.. are network resources
// (one per PS server NIC, or the ring for all-reduce). Times relative to the iteration's start.
struct Span {
  int row = 0;
  double start_s = 0, end_s = 0;
  std::string label;
};

// One dispatched transfer (all iterations), for tests and analysis.
struct TransferRecord {
  long id;
  int iteration;
  double priority;
  double bytes;
  int first_tensor;
  double start_s, end_s;
  double in_flight_bytes_after;  // bytes in flight right after this dispatch (including it)
};

struct IterationResult {
  std::string scheduler;
  std::vector<double> iteration_s;  // every simulated iteration
  double iteration_mean_s = 0;      // steady state: mean after warm-up
  double compute_s = 0;             // forward + backward of one iteration
  double comm_busy_s = 0;           // time some transfer is active, in the last iteration
  double overlap = 0;               // fraction of comm_busy_s that overlaps compute
  double max_in_flight_bytes = 0;
  long transfers = 0;
  std::vector<std::string> rows;
  std::vector<Span> spans;
  std::vector<TransferRecord> log;
};

nlohmann::json to_json(const IterationResult& r, bool with_log);
IterationResult iteration_result_from_json(const nlohmann::json& j);

// Runs one simulation (in a forked child; see above) with `scheduler` built from its registry
// entry and the knob values `scheduler_params` (scheduler.h: "<scheduler>.<knob>" or bare keys).
// Validates everything first; bad input raises dmlkit::Error in the caller.
IterationResult simulate(const TrainingWorkload& workload, const NetworkConfig& net, const std::string& scheduler,
                         const KnobValues& scheduler_params, const SimOptions& sim = {});

// Runs it in this process: only valid once per process (SimGrid's single engine).
IterationResult simulate_in_process(const TrainingWorkload& workload, const NetworkConfig& net,
                                    const std::string& scheduler, const KnobValues& scheduler_params,
                                    const SimOptions& sim);

}  // namespace dmlkit::comm
