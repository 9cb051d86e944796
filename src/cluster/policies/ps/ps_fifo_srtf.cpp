// FIFO and SRTF for parameter-server jobs with the user's fixed (PS, workers) (the baselines of
// Optimus, EuroSys'18, and DL2; cluster-schedulers spec 6.3/6.4), run by `fifo` and `srtf` when the
// workload holds PS jobs.
//
// fifo: running jobs keep their placement (no preemption); waiting jobs in arrival order get their
//   whole request or nothing; head-of-line blocking unless fifo.backfill=1.
// srtf: preemptive; every round jobs are ordered by their true remaining time at their request
//   (oracle: remaining epochs / true speed); each in turn keeps its current placement if it still
//   fits, else gets its whole request placed afresh, else waits (later jobs may still start).
// Placement [A]: every task on the least-loaded server (sum of used/capacity over CPU, GPU,
// memory, bandwidth; ties lowest id) where it fits, PSs and workers alternating.
#include <algorithm>
#include <limits>
#include <numeric>

#include "cluster/policies/factories.h"
#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

namespace {

class PsFifo final : public Policy {
 public:
  explicit PsFifo(const Knobs& knobs) : backfill_(knobs.get_bool("fifo.backfill")) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
    pool_->reset();
    for (size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i].running()) pool_->take(*jobs[i].job->ps, jobs[i].placement);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].running()) continue;
      const PsJobSpec& job = *jobs[i].job->ps;
      if (!place_least_loaded(*pool_, job, job.user_ps, job.user_workers, out[i]) && !backfill_) break;
    }
  }

 private:
  bool backfill_;
  std::unique_ptr<PsPool> pool_;
};

class PsSrtf final : public Policy {
 public:
  explicit PsSrtf(const PolicyOptions&) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
    pool_->reset();
    const size_t n = jobs.size();
    remaining_.resize(n);
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const PsJobMonitor& m = *ps_monitor(jobs[i]);
      const PsJobSpec& job = m.spec();
      const double v = m.true_speed(job.user_ps, job.user_workers) / job.job_type().epoch_size;
      remaining_[i] = v > 0 ? (m.true_total_epochs() - m.epochs_done()) / v : std::numeric_limits<double>::infinity();
    }
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return remaining_[a] < remaining_[b]; });
    for (int i : order_) {
      const PsJobSpec& job = *jobs[i].job->ps;
      if (jobs[i].running() && pool_->can_host(job, jobs[i].placement)) {
        out[i] = jobs[i].placement;
        pool_->take(job, out[i]);
        continue;
      }
      place_least_loaded(*pool_, job, job.user_ps, job.user_workers, out[i]);
    }
  }

 private:
  std::unique_ptr<PsPool> pool_;
  std::vector<double> remaining_;
  std::vector<int> order_;
};

}  // namespace

std::unique_ptr<Policy> make_ps_fifo(const PolicyOptions&, const Knobs& knobs) {
  return std::make_unique<PsFifo>(knobs);
}
std::unique_ptr<Policy> make_ps_srtf(const PolicyOptions& options, const Knobs&) {
  return std::make_unique<PsSrtf>(options);
}

}  // namespace dmlkit::cluster
