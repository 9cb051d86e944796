// pace: PACE (Bao, Peng, Chen, Wu; INFOCOM 2020), reconstructed from its abstract (no public code;
// spec comm-and-ps.md section 2.1 -- the details below are our reconstruction, not verified).
// Algorithm: (1) preemptive priority: a tensor's priority is the position, in the forward order,
// of the first op that consumes it; at every partition boundary the most urgent ready tensor is
// sent. (2) tensor fusion by dynamic programming with the schedule as oracle: tensors in ready
// order are cut into contiguous fused groups; the DP over prefixes (pace_oracle.h) picks, for each
// prefix, the last group that minimises the oracle's iteration time; a group is ready when its
// last member is and takes the best priority of its members.
// Assumptions [A]: all-reduce only, as in the paper (with a PS, partitions sent under a small
// window move in lockstep -- all push, then all pull -- and waste half of each full-duplex NIC);
// preemption unit chosen by the oracle among 1, 2, 4, ..., 64 MiB for the unfused schedule (or
// --partition); one partition in flight (--credit); the oracle's
// alpha/beta come from the network (network.h: sync_alpha_s, sync_beta_s_per_byte); groups are at
// most 64 tensors long (bounds the DP's cost).
#include <algorithm>
#include <limits>

#include "comm/pace_oracle.h"
#include "comm/scheduler.h"
#include "comm/schedulers/priority_queue.h"
#include "core/error.h"

namespace dmlkit::comm {
namespace {

class Pace final : public CommScheduler {
 public:
  Pace(double partition, std::optional<double> credit) : chosen_(partition), credit_(credit) {}
  void setup(const TrainingWorkload& w, const NetworkConfig& net) override {
    workload_ = &w;
    PriorityCreditQueue::Config c;
    c.partition_bytes = chosen_;
    if (credit_)
      c.credit_bytes = *credit_;
    else
      c.max_in_flight = 1;  // strict priority: one partition on the network at a time
    queue_.set_config(c);
    PaceOracle oracle(w, OracleNetwork{sync_alpha_s(net), sync_beta_s_per_byte(net), chosen_});
    groups_ = pace_fusion_plan(oracle);
    group_of_.assign(w.tensors.size(), 0);
    priority_.assign(groups_.size(), 0);
    for (size_t g = 0; g < groups_.size(); ++g) {
      int p = std::numeric_limits<int>::max();
      for (int t : groups_[g]) {
        group_of_[t] = static_cast<int>(g);
        p = std::min(p, w.tensors[t].forward_rank);
      }
      priority_[g] = p;
    }
    ready_count_.assign(groups_.size(), 0);
  }
  void on_ready(int tensor, double) override {
    const int g = group_of_[tensor];
    if (++ready_count_[g] < static_cast<int>(groups_[g].size())) return;
    ready_count_[g] = 0;
    std::vector<Chunk> chunks;
    double bytes = 0;
    for (int t : groups_[g]) {
      chunks.push_back({t, workload_->tensors[t].bytes});
      bytes += workload_->tensors[t].bytes;
    }
    queue_.push(chunks, bytes, priority_[g], g);
  }
  void on_done(const Transfer& t, double) override { queue_.done(t); }
  void poll(double, std::vector<Transfer>& out) override { queue_.poll(out); }

 private:
  double chosen_ = 0;
  std::optional<double> credit_;
  const TrainingWorkload* workload_ = nullptr;
  PriorityCreditQueue queue_;
  std::vector<std::vector<int>> groups_;
  std::vector<int> group_of_, ready_count_;
  std::vector<double> priority_;
};

// PACE's preemption unit when none is given: the candidate (1, 2, 4, ..., 64 MiB) the oracle likes
// best for the unfused schedule (a smaller unit preempts sooner but pays alpha more often).
double pace_default_partition_bytes(const TrainingWorkload& w, const NetworkConfig& net) {
  std::vector<std::vector<int>> singletons;
  for (size_t t = 0; t < w.tensors.size(); ++t) singletons.push_back({static_cast<int>(t)});
  double best = std::numeric_limits<double>::infinity(), chosen = 0;
  for (double mib : {1, 2, 4, 8, 16, 32, 64}) {
    const double bytes = mib * 1024 * 1024;
    const double cost =
        PaceOracle(w, OracleNetwork{sync_alpha_s(net), sync_beta_s_per_byte(net), bytes}).evaluate(singletons);
    if (cost < best - 1e-12) best = cost, chosen = bytes;
  }
  return chosen;
}

std::unique_ptr<CommScheduler> make_pace(const Knobs& knobs, const SchedulerContext& ctx) {
  const double partition = size_knob_bytes(knobs, "pace.partition-mb", 1e6,
                                           [&] { return pace_default_partition_bytes(*ctx.workload, *ctx.net); });
  std::optional<double> credit;  // none: one partition in flight
  if (knobs.given("pace.credit-mb")) credit = knobs.get_double("pace.credit-mb") * 1e6;
  return std::make_unique<Pace>(partition, credit);
}

}  // namespace

SchedulerEntry pace_entry() {
  return {"pace",
          "PACE (INFOCOM'20, reconstructed): preemptive DAG priority + DP fusion",
          make_pace,
          {knob_double("pace.partition-mb", 0, "preemption unit (MB)")
               .at_least(0.01)
               .shown("chosen by the oracle (1..64 MiB)"),
           knob_double("pace.credit-mb", 0, "bytes in flight (MB)")
               .at_least(0, true)
               .shown("none (one partition in flight)")},
          {.ps = false}};
}

}  // namespace dmlkit::comm
