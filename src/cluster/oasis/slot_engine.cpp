// The baselines' slotted loop and placement helpers (see slot_engine.h).
#include "cluster/oasis/slot_engine.h"

#include <algorithm>

namespace dmlkit::cluster::oasis {

namespace {

// The hosting server with the most room for one task of `d` (-1 if none has room).
int roomiest(const SlotLedger& ledger, int t, const ResourceVec& d, bool ps) {
  const OasisCluster& c = ledger.cluster();
  int best = -1, best_room = 0;
  for (int h = 0; h < c.num_servers(); ++h) {
    if (!c.hosts(h, ps)) continue;
    const int room = ledger.room(t, h, d);
    if (room > best_room) best = h, best_room = room;
  }
  return best;
}

void bump(SlotAllocation& a, int h, bool ps, int delta) {
  if (delta == 0) return;
  for (auto& tc : a.tasks)
    if (tc.server == h) {
      (ps ? tc.ps : tc.workers) += delta;
      return;
    }
  a.tasks.push_back({h, ps ? 0 : delta, ps ? delta : 0});
}

}  // namespace

ResourceVec total_capacity(const OasisCluster& c) {
  ResourceVec cap{};
  for (const auto& s : c.servers)
    for (int r = 0; r < kNumResources; ++r) cap[r] += s.capacity[r];
  return cap;
}

void progressive_fill(int t, std::span<const ActiveJob> active, const std::function<int(size_t)>& limit,
                      const ResourceVec& cap, SlotLedger& ledger, std::span<SlotAllocation> alloc) {
  std::vector<char> open(active.size(), 1);
  std::vector<double> share(active.size(), 0.0);
  for (;;) {
    int pick = -1;
    for (size_t i = 0; i < active.size(); ++i) {
      if (!open[i]) continue;
      if (alloc[i].workers() >= limit(i)) {
        open[i] = 0;
        continue;
      }
      if (pick < 0 || share[i] < share[pick]) pick = static_cast<int>(i);
    }
    if (pick < 0) break;
    if (place_workers(*active[pick].job, t, 1, ledger, alloc[pick]) == 0) {
      open[pick] = 0;
      continue;
    }
    share[pick] = dominant_share(*active[pick].job, alloc[pick], cap);
  }
}

double dominant_share(const OasisJob& job, const SlotAllocation& a, const ResourceVec& cap) {
  const double w = a.workers(), p = a.ps();
  double s = 0;
  for (int r = 0; r < kNumResources; ++r)
    if (cap[r] > 0) s = std::max(s, (w * job.worker_demand[r] + p * job.ps_demand[r]) / cap[r]);
  return s;
}

int place_workers(const OasisJob& job, int t, int workers, SlotLedger& ledger, SlotAllocation& a) {
  a.slot = t;
  int w = a.workers(), ps = a.ps();
  int added = 0;
  for (; added < workers && w < job.max_workers; ++added) {
    const int hw = roomiest(ledger, t, job.worker_demand, false);
    if (hw < 0) break;
    ledger.add(t, hw, job.worker_demand, 1, false);
    int need = job.ps_for(w + 1) - ps;
    std::vector<int> placed;
    while (need > 0) {
      const int hp = roomiest(ledger, t, job.ps_demand, true);
      if (hp < 0) break;
      ledger.add(t, hp, job.ps_demand, 1, true);
      placed.push_back(hp);
      --need;
    }
    if (need > 0) {  // roll back this worker and its PSs
      ledger.remove(t, hw, job.worker_demand, 1);
      for (int hp : placed) ledger.remove(t, hp, job.ps_demand, 1);
      break;
    }
    bump(a, hw, false, 1);
    for (int hp : placed) bump(a, hp, true, 1);
    ++w;
    ps += static_cast<int>(placed.size());
  }
  return added;
}

bool place_gang(const OasisJob& job, int t, int workers, SlotLedger& ledger, SlotAllocation& a) {
  SlotAllocation trial;
  trial.slot = t;
  if (place_workers(job, t, workers, ledger, trial) == workers) {
    for (const auto& tc : trial.tasks) {
      bump(a, tc.server, false, tc.workers);
      bump(a, tc.server, true, tc.ps);
    }
    a.slot = t;
    return true;
  }
  release(job, ledger, trial);
  return false;
}

void release(const OasisJob& job, SlotLedger& ledger, SlotAllocation& a) {
  for (const auto& tc : a.tasks) {
    ledger.remove(a.slot, tc.server, job.worker_demand, tc.workers);
    ledger.remove(a.slot, tc.server, job.ps_demand, tc.ps);
  }
  a.tasks.clear();
}

OasisRun run_slotted(const OasisProblem& p, SlotScheduler& scheduler) {
  OasisRun run(*p.cluster);
  const auto& jobs = *p.jobs;
  run.jobs.resize(jobs.size());
  for (auto& o : run.jobs) o.admitted = true;
  std::vector<ActiveJob> active;
  size_t next = 0;
  bool departed = false;
  for (int t = 0; t < p.cluster->horizon_slots; ++t) {
    bool arrived = false;
    while (next < jobs.size() && jobs[next].arrival_slot <= t) {
      active.push_back({&jobs[next], static_cast<int>(next), 0, 0});
      ++next;
      arrived = true;
    }
    std::vector<SlotAllocation> alloc(active.size());
    for (auto& a : alloc) a.slot = t;
    if (!active.empty()) scheduler.allocate(t, active, arrived, departed, run.ledger, alloc);
    departed = false;
    std::vector<ActiveJob> still;
    for (size_t i = 0; i < active.size(); ++i) {
      ActiveJob& aj = active[i];
      JobOutcome& o = run.jobs[aj.index];
      const int w = alloc[i].workers();
      aj.last_workers = w;
      if (w > 0) {
        aj.done += w;
        o.work_done = aj.done;
        o.schedule.push_back(std::move(alloc[i]));
      }
      if (aj.done >= aj.job->work_worker_slots) {
        o.completion_slot = t;
        o.utility = aj.job->utility.value(t - aj.job->arrival_slot + 1);
        departed = true;
      } else {
        still.push_back(aj);
      }
    }
    active.swap(still);
  }
  return run;
}

}  // namespace dmlkit::cluster::oasis
