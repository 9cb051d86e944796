// Greedy marginal-gain allocation; see allocation.h.
#include "cluster/policies/optimus/allocation.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

namespace {

constexpr double kNever = 1e300;  // remaining time of a job that makes no progress

struct Entry {
  double gain;
  int job;
  bool is_ps;
};
struct Less {
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.gain != b.gain) return a.gain < b.gain;
    return a.job > b.job;  // earlier arrival first
  }
};

double dominant_amount(const TaskDemand& d, const double cap[4], bool share) {
  double v[kResources];
  demand_vector(d, v);
  int best = -1;
  double best_share = -1;
  for (int r = 0; r < kResources; ++r) {
    if (v[r] <= 0) continue;
    const double s = cap[r] > 0 ? v[r] / cap[r] : std::numeric_limits<double>::infinity();
    if (s > best_share) {
      best_share = s;
      best = r;
    }
  }
  if (best < 0) return 1.0;
  return share ? best_share : v[best];
}

bool fits(const double used[4], const TaskDemand& d, int n, const double cap[4]) {
  double v[kResources];
  demand_vector(d, v);
  for (int r = 0; r < kResources; ++r)
    if (used[r] + n * v[r] > cap[r] + 1e-9) return false;
  return true;
}

void take(double used[4], const TaskDemand& d, int n) {
  double v[kResources];
  demand_vector(d, v);
  for (int r = 0; r < kResources; ++r) used[r] += n * v[r];
}

}  // namespace

void greedy_allocate(std::span<const AllocJob> jobs, const double capacity[4],
                     const std::function<double(int, int, int)>& speed, const AllocOptions& options,
                     std::vector<int>& ps, std::vector<int>& workers) {
  const int n = static_cast<int>(jobs.size());
  ps.assign(n, 0);
  workers.assign(n, 0);
  double used[4] = {0, 0, 0, 0};
  auto time_at = [&](int j, int p, int w) {
    const double f = speed(j, p, w);
    return f > 0 ? jobs[j].remaining / f : kNever;
  };
  auto best_gain = [&](int j) {
    const AllocJob& job = jobs[j];
    const double t0 = time_at(j, ps[j], workers[j]);
    double g_ps = -kNever, g_w = -kNever;
    if (ps[j] < job.max_ps)
      g_ps = (t0 - time_at(j, ps[j] + 1, workers[j])) / dominant_amount(job.ps, capacity, options.gain_share);
    if (workers[j] < job.max_workers)
      g_w = (t0 - time_at(j, ps[j], workers[j] + 1)) / dominant_amount(job.worker, capacity, options.gain_share);
    return g_ps >= g_w ? Entry{g_ps, j, true} : Entry{g_w, j, false};
  };
  std::priority_queue<Entry, std::vector<Entry>, Less> heap;
  for (int j = 0; j < n; ++j) {
    const AllocJob& job = jobs[j];
    if (!fits(used, job.ps, 1, capacity) || !fits(used, job.worker, 1, capacity)) continue;
    double trial[4] = {used[0], used[1], used[2], used[3]};
    take(trial, job.ps, 1);
    if (!fits(trial, job.worker, 1, capacity)) continue;
    take(used, job.ps, 1);
    take(used, job.worker, 1);
    ps[j] = workers[j] = 1;
    if (job.model_ready) heap.push(best_gain(j));
  }
  while (!heap.empty()) {
    const Entry e = heap.top();
    heap.pop();
    if (!(e.gain > 0)) break;
    const AllocJob& job = jobs[e.job];
    const TaskDemand& d = e.is_ps ? job.ps : job.worker;
    if (!fits(used, d, 1, capacity)) {
      if (options.stop_on_first_fail) break;
      continue;
    }
    take(used, d, 1);
    (e.is_ps ? ps[e.job] : workers[e.job]) += 1;
    heap.push(best_gain(e.job));
  }
}

}  // namespace dmlkit::cluster
