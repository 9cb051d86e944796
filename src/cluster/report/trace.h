// A cluster run as a Chrome/Perfetto trace (core/trace_events.h): jobs on servers over time, for
// `dmlkit cluster simulate --trace FILE.json` (issue 20). Needs the placement intervals the
// simulator keeps with SimConfig::record_placements.
#pragma once
#include "cluster/model/cluster_spec.h"
#include "cluster/sim/simulator.h"
#include "core/trace_events.h"

namespace dmlkit::cluster {

// Each server is a process ("server N (G GPUs)"), each of its GPUs a thread ("GPU k"), and a job
// holding g GPUs of a server from t0 to t1 one complete event (named after the job, category its
// application, args job id / gpus / workers / ps) on each of g GPU threads. GPUs are not
// identified by the simulator, which places counts per server: the threads are lanes given
// greedily (lowest free lane first, in order of start), so no two jobs share a lane at a time and
// the lanes used never exceed the server's GPUs. A slice without GPUs (parameter-server jobs'
// CPU-only tasks) takes one lane after the GPUs ("CPU tasks k").
void add_placement_trace(TraceEvents& trace, const SimResult& result, const ClusterSpec& cluster);

}  // namespace dmlkit::cluster
