// The simulated cluster's network and synchronisation architecture, plus the analytic quantities
// derived from it: the cost of synchronising b bytes once (alpha + beta*b), and the lower bound of
// an iteration. Bandwidths are in bytes per second internally; parse_bandwidth() reads "10Gbps",
// "25Gbit/s", "1.25GBps", "800Mbps" (bits unless the unit says bytes, SI multipliers).
#pragma once
#include <utility>
#include <vector>
#include <string>

#include "comm/workload.h"

namespace dmlkit::comm {

enum class Arch { ps, allreduce };
std::string to_string(Arch a);
Arch parse_arch(const std::string& s);  // "ps" | "allreduce"; else Error on field "arch"

struct NetworkConfig {
  Arch arch = Arch::ps;
  int workers = 8;
  int servers = 8;                  // PS hosts (ignored for allreduce)
  double bandwidth_Bps = 1.25e9;    // every NIC, each direction (full duplex)
  double latency_s = 5e-6;          // one hop host->switch (a host-to-host path has two hops) [A]
  double switch_bandwidth_Bps = 0;  // switch backplane; 0 = non-blocking switch
  int racks = 1;                    // hosts in racks (workers and servers each spread evenly, in
                                    // order); traffic between racks crosses both racks' uplinks
  double uplink_bandwidth_Bps = 0;  // rack uplink per direction; 0 = not oversubscribed (NIC
                                    // bandwidth x hosts in the rack)
  double op_overhead_s = 0;         // fixed cost per synchronisation operation (launch, negotiation) [A]
  double big_array_bytes = 4e6;     // PS: a transfer at least this large is split over all servers
                                    // (MXNet's MXNET_KVSTORE_BIGARRAY_BOUND, 1e6 fp32 elements) [C]
  // Ring all-reduce model. stepwise: 2(N-1) steps, each N flows of bytes/N and a barrier.
  // aggregated (default): every worker sends its 2(N-1)/N * bytes to its neighbour as one flow,
  // after the 2(N-1)-1 extra per-step latencies. On a homogeneous ring every step's N flows are
  // identical and share identical links, so both take the same time (checked by a test); the
  // aggregated model needs 2(N-1) times fewer SimGrid flows.
  bool ring_stepwise = false;
  // Heterogeneous workers: (worker index, fraction of the NIC bandwidth in (0, 1]) for a slow link
  // (both directions). A slow link slows every ring step it carries, so the whole all-reduce.
  std::vector<std::pair<int, double>> slow_links;
  double link_scale(int worker) const;  // the worker's NIC bandwidth fraction (1 if not slow)
  double slowest_link_scale() const;    // the smallest of them (bounds a ring step)
  void validate() const;  // Error naming the bad field
};

// Bytes per second from a bandwidth string; Error(field) if malformed or not > 0.
double parse_bandwidth(const std::string& text, const std::string& field);

// Time to synchronise `bytes` once on an otherwise idle network: alpha + beta * bytes.
//   allreduce (ring): alpha = 2(N-1) steps x 2 hops x latency + overhead, beta = 2(N-1)/(N B);
//   ps: push then pull; each worker NIC carries b up and b down, each server NIC W*b/M (bytes
//   spread over all servers): beta = 2 max(1, W/M) / B, alpha = 2 x 2 hops x latency + overhead.
double sync_alpha_s(const NetworkConfig& net);
double sync_beta_s_per_byte(const NetworkConfig& net);

// Lower bound of one iteration: max(compute alone, the bandwidth-limited transfer of all
// gradients once). For PS, push and pull overlap (full duplex), so the transfer bound is
// S/B * max(1, W/M); for ring all-reduce it is 2(N-1)/N * S/B.
double comm_bound_s(const TrainingWorkload& w, const NetworkConfig& net);
double lower_bound_s(const TrainingWorkload& w, const NetworkConfig& net);

}  // namespace dmlkit::comm
