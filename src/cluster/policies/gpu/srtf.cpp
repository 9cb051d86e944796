// SRTF: shortest remaining time first, preemptive, with gang scheduling (the clairvoyant baseline
// of the cluster scheduler papers, e.g. Tiresias and Optimus; cluster-schedulers spec section 6.4).
//
// Algorithm, every round:
//   1. Order all active jobs by their true remaining time at their requested size,
//      JobOracle::remaining_time_s(job.num_gpus) (ties: arrival time, then job id).
//   2. Walk that order with a countdown of the cluster's GPUs; a job runs if its full request still
//      fits, otherwise it waits and the walk goes on (smaller, later jobs may still run).
//   3. Preemption: a running job that is not chosen loses its GPUs, so a shorter newcomer preempts
//      a longer running job when there is no room for both.
//   4. Placement: chosen jobs that were running keep their servers; the others are placed in the
//      SRTF order with PolicyOptions::placement.
// Assumptions [A]: the policy is an oracle (it knows each job's true remaining time, which a real
// scheduler does not); the restart delay a preemption costs is not weighed against the gain; a
// job's request is its workload GPU count and it never runs with fewer or more GPUs; the walk
// skips jobs that do not fit instead of blocking (no head-of-line blocking).
#include <algorithm>
#include <numeric>

#include "cluster/policies/factories.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

class SrtfPolicy final : public Policy {
 public:
  explicit SrtfPolicy(const PolicyOptions& options) : placement_(options.placement) {}

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    const size_t n = jobs.size();
    remaining_s_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (jobs[i].oracle == nullptr) throw Error("policy srtf needs a job oracle (true remaining times)");
      remaining_s_[i] = jobs[i].oracle->remaining_time_s(std::max(1, jobs[i].job->num_gpus));
    }
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      if (remaining_s_[a] != remaining_s_[b]) return remaining_s_[a] < remaining_s_[b];
      if (jobs[a].job->arrival_s != jobs[b].job->arrival_s) return jobs[a].job->arrival_s < jobs[b].job->arrival_s;
      return jobs[a].job->id < jobs[b].job->id;
    });

    // Choose the jobs to run by GPU count.
    int left = view.cluster->total_gpus();
    chosen_.assign(n, 0);
    for (int i : order_) {
      const int want = std::max(1, jobs[i].job->num_gpus);
      if (want <= left) {
        chosen_[i] = 1;
        left -= want;
      }
    }

    // Place: chosen running jobs stay where they are; the rest go where there is room.
    std::vector<int> free(view.cluster->servers.size());
    for (size_t s = 0; s < free.size(); ++s) free[s] = view.cluster->servers[s].gpus;
    FreeGpus pool(std::move(free));
    for (size_t i = 0; i < n; ++i) {
      out[i].clear();
      if (chosen_[i] && jobs[i].running() && jobs[i].gpus() == std::max(1, jobs[i].job->num_gpus)) {
        out[i] = jobs[i].placement;
        pool.take(out[i]);
        chosen_[i] = 2;  // kept
      }
    }
    for (int i : order_) {
      if (chosen_[i] != 1) continue;
      // The count fits by construction, and every placement kind can split a job over servers.
      pool.place(std::max(1, jobs[i].job->num_gpus), placement_, out[i]);
    }
  }

 private:
  PlacementKind placement_;
  std::vector<double> remaining_s_;
  std::vector<int> order_;
  std::vector<char> chosen_;
};

}  // namespace

PolicyEntry srtf_entry() {
  return {"srtf",
          "shortest remaining time first (oracle), gang, preemptive",
          [](const PolicyOptions& options, const Knobs&) -> std::unique_ptr<Policy> {
            return std::make_unique<SrtfPolicy>(options);
          },
          {},
          {.ps_jobs = true, .make_ps = make_ps_srtf, .ps_variant = "policies/ps/ps_fifo_srtf.cpp"}};
}

}  // namespace dmlkit::cluster
