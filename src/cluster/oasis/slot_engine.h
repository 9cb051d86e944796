// The slotted loop the baselines run in (fifo, drf, rrh, dorm, tetris on the OASiS model): every
// job is admitted; in each slot a scheduler decides, from scratch, how many workers (and the PSs
// they need, ceil(w / gamma)) each arrived unfinished job runs and where; a job's progress is its
// workers that slot (worker-slots); it completes in the slot its work reaches D and earns
// f(completion - arrival + 1), or 0 if the horizon ends first. Freed resources are reused from the
// next slot on.
#pragma once
#include <functional>
#include <span>
#include <vector>

#include "cluster/oasis/method.h"

namespace dmlkit::cluster::oasis {

struct ActiveJob {
  const OasisJob* job = nullptr;
  int index = 0;       // in the problem's job list
  long done = 0;       // worker-slots so far
  int last_workers = 0;  // workers in the previous slot
  long remaining() const { return job->work_worker_slots - done; }
  // The user's fixed request, never more workers than the remaining work can use.
  int request() const { return static_cast<int>(std::min<long>(job->user_workers, remaining())); }
};

class SlotScheduler {
 public:
  virtual ~SlotScheduler() = default;
  // Fills alloc[i] (slot t, empty on entry) for active[i] and adds it to `ledger`. `arrived`: some
  // job arrived in slot t; `departed`: some job completed in slot t - 1.
  virtual void allocate(int t, std::span<const ActiveJob> active, bool arrived, bool departed, SlotLedger& ledger,
                        std::span<SlotAllocation> alloc) = 0;
};

OasisRun run_slotted(const OasisProblem& problem, SlotScheduler& scheduler);

// How the baselines place a task [A]: on the hosting server with the most room for it (ties:
// lowest index), i.e. spreading load.
// Adds up to `workers` more workers of `job` to `a` (slot t), each with the PSs it needs, on the
// server with the most room; returns how many were added (stops at the first that does not fit).
int place_workers(const OasisJob& job, int t, int workers, SlotLedger& ledger, SlotAllocation& a);
// All `workers` or nothing: returns false (and leaves `a` and the ledger as they were) if not all fit.
bool place_gang(const OasisJob& job, int t, int workers, SlotLedger& ledger, SlotAllocation& a);
// Removes `a`'s tasks from the ledger and clears it.
void release(const OasisJob& job, SlotLedger& ledger, SlotAllocation& a);

// Progressive filling (DRF): repeatedly gives one more worker (with the PSs it needs) to the job
// with the smallest dominant share whose allocation is below limit(i), until no such job's next
// worker fits. Used by drf (limit: the user's request) and dorm (limit: min(N_i, remaining)).
void progressive_fill(int t, std::span<const ActiveJob> active, const std::function<int(size_t)>& limit,
                      const ResourceVec& total_capacity, SlotLedger& ledger, std::span<SlotAllocation> alloc);

// Dominant share of an allocation over the whole cluster's capacity.
double dominant_share(const OasisJob& job, const SlotAllocation& a, const ResourceVec& total_capacity);
ResourceVec total_capacity(const OasisCluster& c);

}  // namespace dmlkit::cluster::oasis
