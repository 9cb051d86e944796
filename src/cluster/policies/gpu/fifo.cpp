// FIFO: first come, first served with gang scheduling (the classic baseline of every cluster
// scheduler paper; cluster-schedulers spec section 6.3).
//
// Algorithm, every round:
//   1. Running jobs keep their placement: FIFO never preempts.
//   2. Waiting jobs are visited in arrival order (ties: job id; the order in which Policy::schedule
//      lists the active jobs). Each gets its full request
//      (job.num_gpus GPUs, placed with PolicyOptions::placement) or nothing.
//   3. Head-of-line blocking: the first waiting job that does not fit stops the walk, so later
//      jobs wait even if they would fit. With `fifo.backfill=1` the walk goes on and any later job
//      that fits starts (greedy backfilling without reservations: a large job at the head can be
//      delayed indefinitely by a stream of small ones).
// Assumptions [A]: a job's request is its workload GPU count (num_replicas for Pollux-style jobs);
// a job never runs with fewer or more GPUs than requested; GPUs may span servers when the
// placement kind splits them (consolidate splits only when no single server has room).
#include <algorithm>

#include "cluster/policies/factories.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

class FifoPolicy final : public Policy {
 public:
  FifoPolicy(const PolicyOptions& options, const Knobs& knobs)
      : placement_(options.placement), backfill_(knobs.get_bool("fifo.backfill")) {}

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    // This runs at every event of a long trace (the whole Philly trace keeps ~8,000 jobs
    // waiting), so it does no work that a full pass would repeat: the same input as the previous
    // call gives the same (unchanged) decision; the free GPUs come from the caller when it keeps
    // them (else: each server's GPUs minus the running jobs' placements); the walk stops at the
    // first job that does not fit unless backfilling; and only the jobs started are reported.
    ChangeList* changes = view.changes;
    if (changes) changes->listed = true;
    if (view.jobs_unchanged) return;  // deterministic, stateless: the previous decision stands
    if (view.free_gpus.size() == view.cluster->servers.size()) {
      pool_.assign(view.free_gpus);
    } else {
      free_.resize(view.cluster->servers.size());
      for (size_t s = 0; s < free_.size(); ++s) free_[s] = view.cluster->servers[s].gpus;
      pool_.assign(free_);
      for (const JobView& v : jobs)
        if (v.running()) pool_.take(v.placement);
    }
    // `out` starts as each job's current placement: running jobs keep theirs. Policy::schedule
    // lists the active jobs in arrival order (ties: job id), which is FIFO order.
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].running()) continue;
      if (pool_.total() == 0) break;
      if (pool_.place(std::max(1, jobs[i].job->num_gpus), placement_, out[i])) {
        if (changes) changes->indices.push_back(static_cast<int>(i));
      } else {
        out[i].clear();  // it was waiting: unchanged
        if (!backfill_) break;
      }
    }
  }

 private:
  PlacementKind placement_;
  bool backfill_;
  std::vector<int> free_;
  FreeGpus pool_;
};

}  // namespace

PolicyEntry fifo_entry() {
  return {
      "fifo",
      "first come first served, gang, no preemption (fifo.backfill=1 lets later jobs that fit start)",
      [](const PolicyOptions& options, const Knobs& knobs) -> std::unique_ptr<Policy> {
        return std::make_unique<FifoPolicy>(options, knobs);
      },
      {knob_bool("fifo.backfill", false, "let later waiting jobs that fit start past a blocked head (no reservation)")},
      {.ps_jobs = true, .make_ps = make_ps_fifo, .ps_variant = "policies/ps/ps_fifo_srtf.cpp"}};
}

}  // namespace dmlkit::cluster
