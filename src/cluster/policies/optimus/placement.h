// Optimus' task placement (Peng et al., EuroSys'18; section 2.5 of specs/cluster-schedulers.md):
// jobs in increasing order of p + w (ties: arrival); servers in a min-heap on used CPU (most free
// CPU first, ties: lowest id). A job takes the fewest servers from the heap (k = 1, 2, ...) on
// which its PSs and workers, dealt round-robin, all fit -- so every used server gets the same
// number of PSs and of workers, +-1 -- and the servers go back to the heap with their new usage.
// If no k works, partial placement: one PS, one worker, one PS, ... each on the lowest-indexed
// server with room until the next task does not fit (then only the other kind); the job keeps
// what was placed if that is at least 1 PS + 1 worker, else it waits this interval.
// Assumptions [A]: workers are dealt over the candidates that can host a worker at all (a GPU
// worker never goes to a CPU-only server) and PSs over those that can host a PS; k stops at
// p + w (more servers cannot help); after a partial placement the candidates return to the heap
// (the prototype leaves them out, so every later job of that interval waits); a job may be told
// to avoid some servers (straggler replacement).
#pragma once
#include <span>
#include <vector>

#include "cluster/model/placement.h"
#include "cluster/policies/ps/ps_pool.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

class OptimusPlacer {
 public:
  // Places every job with ps[i] >= 1 and workers[i] >= 1 in `pool` (taking resources); may lower
  // ps[i] / workers[i] (partial) or set both to 0 (pending). avoid[i] lists servers job i must
  // not use (may be empty).
  void place(PsPool& pool, std::span<const PsJobSpec* const> jobs, std::vector<int>& ps, std::vector<int>& workers,
             const std::vector<std::vector<int>>& avoid, std::vector<Placement>& out);

 private:
  bool try_round_robin(PsPool& pool, const PsJobSpec& job, int p, int w, Placement& out);
  bool partial(PsPool& pool, const PsJobSpec& job, int& p, int& w, const std::vector<int>& avoid, Placement& out);

  std::vector<int> order_, cand_, ps_hosts_, wk_hosts_;
  std::vector<std::pair<double, int>> heap_;
};

}  // namespace dmlkit::cluster
