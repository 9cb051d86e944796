// DRF for parameter-server jobs with the user's fixed (PS, workers) (Ghodsi et al., "Dominant
// Resource Fairness", NSDI 2011, as the Optimus paper's baseline; cluster-schedulers spec 6.1), run
// by `drf` when the workload holds PS jobs.
//
// Every round, progressive filling on top of the current allocations (DRF never preempts):
//   1. running jobs keep their tasks;
//   2. repeatedly the job with the lowest dominant share (max over CPU/GPU/memory/bandwidth of its
//      allocation over the cluster total; ties: arrival order) that is below its request gets its
//      next unit: a job with nothing gets a bundle of 1 PS + 1 worker (a PS job needs both), then
//      single tasks keeping PSs and workers in the request's proportion;
//   3. a job whose unit fits on no server leaves the filling for this round.
// Placement [A]: a bundle on the least-loaded server holding both tasks (else each task on the
// least-loaded server where it fits), a single task on the least-loaded server where it fits. A
// job that grows is restarted on its larger placement (the simulator charges the restart).
#include <algorithm>
#include <queue>

#include "cluster/policies/factories.h"
#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

namespace {

class PsDrf final : public Policy {
 public:
  explicit PsDrf(const PolicyOptions&) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
    PsPool& pool = *pool_;
    const size_t n = jobs.size();
    pool.reset_to_running(jobs, ps_, wk_);
    using Entry = std::pair<double, int>;  // (share, index): lowest first
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (size_t i = 0; i < n; ++i) {
      const PsJobSpec& job = *jobs[i].job->ps;
      if (ps_[i] < job.user_ps || wk_[i] < job.user_workers)
        heap.emplace(dominant_share(pool, job, ps_[i], wk_[i]), static_cast<int>(i));
    }
    while (!heap.empty()) {
      const int i = heap.top().second;
      heap.pop();
      const PsJobSpec& job = *jobs[i].job->ps;
      if (!grow(pool, job, i, out[i])) continue;
      if (ps_[i] < job.user_ps || wk_[i] < job.user_workers) heap.emplace(dominant_share(pool, job, ps_[i], wk_[i]), i);
    }
  }

 private:
  bool grow(PsPool& pool, const PsJobSpec& job, int i, Placement& out) {
    if (ps_[i] == 0 && wk_[i] == 0) {
      int s = pool.least_loaded_fitting(job.ps, 1, job.worker, 1);
      if (s >= 0) {
        pool.add(s, job.ps, 1);
        pool.add(s, job.worker, 1);
        add_tasks(out, job, s, 1, 1);
      } else {
        const int sp = pool.least_loaded_fitting(job.ps, 1);
        if (sp < 0) return false;
        pool.add(sp, job.ps, 1);
        const int sw = pool.least_loaded_fitting(job.worker, 1);
        if (sw < 0) {
          pool.add(sp, job.ps, -1);
          return false;
        }
        pool.add(sw, job.worker, 1);
        add_tasks(out, job, sp, 0, 1);
        add_tasks(out, job, sw, 1, 0);
      }
      ps_[i] = wk_[i] = 1;
      return true;
    }
    const bool as_ps = next_task_is_ps(job, ps_[i], wk_[i]);
    const TaskDemand& d = as_ps ? job.ps : job.worker;
    const int s = pool.least_loaded_fitting(d, 1);
    if (s < 0) return false;
    pool.add(s, d, 1);
    add_tasks(out, job, s, as_ps ? 0 : 1, as_ps ? 1 : 0);
    (as_ps ? ps_[i] : wk_[i]) += 1;
    return true;
  }

  std::unique_ptr<PsPool> pool_;
  std::vector<int> ps_, wk_;
};

}  // namespace

std::unique_ptr<Policy> make_ps_drf(const PolicyOptions& options, const Knobs&) {
  return std::make_unique<PsDrf>(options);
}

}  // namespace dmlkit::cluster
