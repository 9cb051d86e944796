// Ground-truth speed of an all-reduce job (Harmony's journal version, second-pass.md 3 /
// cluster-schedulers.md 4: "PS and all-reduce jobs"): workers only, no parameter server; every
// synchronous step each worker computes on its batch, then the workers average their gradients with
// a ring all-reduce over the placement. Written in the conventions of the placement-aware analytic
// PS model (ps_speed.h, DL2's: the type's local_compute_s, model_mb, inter_bw_MBps, intra_bw_MBps):
//   step_s = local_compute_s + 2 (w - 1) / w * model_mb / bw_ring        (w > 1; w = 1: no exchange)
//   bw_ring = min( inter_bw_MBps                     if the workers span more than one server [A],
//                  intra_bw_MBps / w_i for every server i holding w_i > 1 workers [A] )
// [A] ours, every one documented in docs/harmony-seq2seq.md: the ring visits the servers in order,
// so each server's NIC carries one ring flow each way (the inter-server hop runs at the type's
// inter_bw_MBps, as one PS<->worker flow does in the PS model); the w_i hops inside a server share
// its intra-server bandwidth (as the PS model divides intra_bw_MBps among a server's tasks); the
// 2 (w-1)/w factor is the bandwidth-optimal ring's (reduce-scatter + all-gather). The speed is
// w / step_s, in the PS model's units (its synchronous speed is w / max_step_s). Interference
// multiplies it as for PS jobs (interference.h).
#pragma once
#include "cluster/model/placement.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

// Samples per second of an all-reduce job with w workers on `placement` (null or empty: the
// balanced placement on ceil(w / 4) servers, as the PS model's default). 0 when w <= 0.
double allreduce_samples_per_s(const PsJobSpec& job, int w, const Placement* placement);

}  // namespace dmlkit::cluster
