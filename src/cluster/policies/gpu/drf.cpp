// DRF: Dominant Resource Fairness (Ghodsi, Zaharia, Hindman, Konwinski, Shenker, Stoica, "Dominant
// Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI 2011; cluster-schedulers
// spec section 6.1), by progressive filling over the cluster's GPUs, CPU cores and memory.
//
// Algorithm, recomputed from scratch every round:
//   1. A job's task is 1 GPU plus the job's per-GPU CPU and memory demand (Job::cpus_per_gpu,
//      Job::mem_gb_per_gpu). With n tasks its dominant share is
//      n * max(1 / GPUs, cpus_per_gpu / CPUs, mem_gb_per_gpu / memory) over the cluster totals.
//   2. Progressive filling: repeatedly give one more task to the job with the lowest dominant share
//      (ties: earlier arrival, then job id) that is still below its request (job.num_gpus) and
//      whose next task fits in what is left of the cluster; a job whose next task does not fit
//      drops out. Stop when no job can take another task.
//   3. Placement: a job that keeps the same GPU count as it runs with now keeps its servers (no
//      needless restart); the others are placed, in arrival order, with PolicyOptions::placement.
// Assumptions [A]: jobs are elastic -- a job may run with fewer GPUs than it requested (its speed
// model decides how much slower it is; a trace job progresses at min(gpus, request) GPU-seconds
// per second); a job never gets more than its request. Feasibility of CPU and memory is checked
// against the cluster's totals, not per server (the simulator models only GPUs per server); a
// resource the cluster has none of is left out of the shares. All jobs have weight 1. Every change
// of a job's GPU count is a restart, which the simulator charges.
#include <algorithm>
#include <numeric>
#include <queue>

#include "cluster/policies/factories.h"
#include "cluster/policies/ps/ps_pool.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

class DrfPolicy final : public Policy {
  struct Entry {
    double share;
    double arrival_s;
    int id;
    int index;
  };

 public:
  explicit DrfPolicy(const PolicyOptions& options) : placement_(options.placement) {}

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    const ClusterSpec& cluster = *view.cluster;
    const size_t n = jobs.size();
    const double cap_gpus = cluster.total_gpus(), cap_cpus = cluster.total_cpus(), cap_mem = cluster.total_mem_gb();
    double free_gpus = cap_gpus, free_cpus = cap_cpus, free_mem = cap_mem;

    // Dominant share added by one task of each job.
    share_per_task_.resize(n);
    tasks_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      double s = cap_gpus > 0 ? 1.0 / cap_gpus : 0.0;
      if (cap_cpus > 0) s = std::max(s, jobs[i].job->cpus_per_gpu / cap_cpus);
      if (cap_mem > 0) s = std::max(s, jobs[i].job->mem_gb_per_gpu / cap_mem);
      share_per_task_[i] = s;
    }

    // Progressive filling: a min-heap on (share, arrival, id).
    auto after = [](const Entry& a, const Entry& b) {
      if (a.share != b.share) return a.share > b.share;
      if (a.arrival_s != b.arrival_s) return a.arrival_s > b.arrival_s;
      return a.id > b.id;
    };
    heap_.clear();
    for (size_t i = 0; i < n; ++i) heap_.push_back({0.0, jobs[i].job->arrival_s, jobs[i].job->id, static_cast<int>(i)});
    std::make_heap(heap_.begin(), heap_.end(), after);
    constexpr double kSlack = 1e-9;  // floating-point slack when subtracting per-task demands
    while (!heap_.empty() && free_gpus >= 1.0) {
      std::pop_heap(heap_.begin(), heap_.end(), after);
      Entry e = heap_.back();
      heap_.pop_back();
      const Job& job = *jobs[e.index].job;
      const bool cpu_fits = cap_cpus <= 0 || job.cpus_per_gpu <= free_cpus + kSlack;
      const bool mem_fits = cap_mem <= 0 || job.mem_gb_per_gpu <= free_mem + kSlack;
      if (!cpu_fits || !mem_fits) continue;  // its next task does not fit: it drops out
      ++tasks_[e.index];
      free_gpus -= 1.0;
      if (cap_cpus > 0) free_cpus -= job.cpus_per_gpu;
      if (cap_mem > 0) free_mem -= job.mem_gb_per_gpu;
      if (tasks_[e.index] < std::max(1, job.num_gpus)) {
        e.share = tasks_[e.index] * share_per_task_[e.index];
        heap_.push_back(e);
        std::push_heap(heap_.begin(), heap_.end(), after);
      }
    }

    // Placement: unchanged running jobs keep their servers; the rest are placed in arrival order.
    std::vector<int> free(cluster.servers.size());
    for (size_t s = 0; s < free.size(); ++s) free[s] = cluster.servers[s].gpus;
    FreeGpus pool(std::move(free));
    keep_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (jobs[i].running() && jobs[i].gpus() == tasks_[i]) {
        keep_[i] = 1;
        out[i] = jobs[i].placement;
        pool.take(out[i]);
      }
    }
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      if (jobs[a].job->arrival_s != jobs[b].job->arrival_s) return jobs[a].job->arrival_s < jobs[b].job->arrival_s;
      return jobs[a].job->id < jobs[b].job->id;
    });
    for (int i : order_) {
      if (keep_[i]) continue;
      // Task counts never exceed the cluster's GPUs, so the placement always succeeds.
      pool.place(tasks_[i], placement_, out[i]);
    }
  }

 private:
  PlacementKind placement_;
  std::vector<double> share_per_task_;
  std::vector<int> tasks_;
  std::vector<char> keep_;
  std::vector<int> order_;
  std::vector<Entry> heap_;
};

}  // namespace

PolicyEntry drf_entry() {
  return {"drf",
          "Dominant Resource Fairness by progressive filling over GPU/CPU/memory, elastic (NSDI'11)",
          [](const PolicyOptions& options, const Knobs&) -> std::unique_ptr<Policy> {
            return std::make_unique<DrfPolicy>(options);
          },
          {},
          {.ps_jobs = true, .make_ps = make_ps_drf, .ps_variant = "policies/ps/ps_drf.cpp"}};
}

}  // namespace dmlkit::cluster
