// Tetris for parameter-server jobs with the user's fixed (PS, workers) (Grandl et al.,
// "Multi-Resource Packing for Cluster Schedulers", SIGCOMM 2014, as the Optimus paper's baseline;
// cluster-schedulers spec 6.2), run by `tetris` when the workload holds PS jobs.
//
// Every round, on top of the current allocations (no preemption):
//   1. eligible jobs: those below their request; with the fairness knob f (tetris.fairness,
//      default 0.25) only the ceil((1 - f) n) of them with the lowest dominant share;
//   2. servers are visited in id order; on each, repeatedly the eligible job whose next unit fits
//      with the highest score  a + eps * s  is given that unit there, where a = sum_r d[r]/C[r] *
//      F[r]/C[r] (alignment of the unit's demand d with the server's free vector F), s = -rw
//      (remaining work: true remaining time at the request times the request's normalised size,
//      an oracle as Tetris assumes known task durations), eps = mean(a) / mean(rw) * knob
//      (tetris.srtf_weight, default 1); ties: arrival order;
//   3. the unit is a bundle of 1 PS + 1 worker for a job with nothing, else the next task keeping the
//      request's proportion.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "cluster/policies/factories.h"
#include "cluster/policies/ps/ps_pool.h"

namespace dmlkit::cluster {

namespace {

class PsTetris final : public Policy {
 public:
  explicit PsTetris(const Knobs& knobs)
      : fairness_(knobs.get_double("tetris.fairness")), knob_(knobs.get_double("tetris.srtf_weight")) {}

  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
    PsPool& pool = *pool_;
    const size_t n = jobs.size();
    pool.reset_to_running(jobs, ps_, wk_);
    // Eligible jobs (fairness knob) and their remaining work.
    cand_.clear();
    for (size_t i = 0; i < n; ++i) {
      const PsJobSpec& job = *jobs[i].job->ps;
      if (ps_[i] < job.user_ps || wk_[i] < job.user_workers) cand_.push_back(static_cast<int>(i));
    }
    if (cand_.empty()) return;
    share_.resize(n);
    for (int i : cand_) share_[i] = dominant_share(pool, *jobs[i].job->ps, ps_[i], wk_[i]);
    const size_t keep = static_cast<size_t>(std::ceil((1.0 - fairness_) * cand_.size()));
    std::stable_sort(cand_.begin(), cand_.end(), [&](int a, int b) { return share_[a] < share_[b]; });
    cand_.resize(std::max<size_t>(1, keep));
    std::sort(cand_.begin(), cand_.end());
    rw_.resize(n);
    double rw_sum = 0;
    for (int i : cand_) {
      const PsJobMonitor& m = *ps_monitor(jobs[i]);
      const PsJobSpec& job = m.spec();
      const double v = m.true_speed(job.user_ps, job.user_workers) / job.job_type().epoch_size;
      const double t = v > 0 ? (m.true_total_epochs() - m.epochs_done()) / v : 1e12;
      rw_[i] = t * dominant_share(pool, job, job.user_ps, job.user_workers);
      rw_sum += rw_[i];
    }
    const double rw_mean = rw_sum / cand_.size();
    for (int s = 0; s < pool.num_servers(); ++s) {
      while (true) {
        // Alignment of each fitting unit on this server; eps from their mean.
        best_ = -1;
        double a_sum = 0;
        int fitting = 0;
        align_.assign(cand_.size(), -1.0);
        for (size_t k = 0; k < cand_.size(); ++k) {
          const int i = cand_[k];
          const PsJobSpec& job = *jobs[i].job->ps;
          if (ps_[i] >= job.user_ps && wk_[i] >= job.user_workers) continue;
          int np, nw;
          unit(job, i, np, nw);
          if (!pool.fits(s, job.ps, np, job.worker, nw)) continue;
          double dp[kResources], dw[kResources];
          demand_vector(job.ps, dp);
          demand_vector(job.worker, dw);
          double a = 0;
          for (int r = 0; r < kResources; ++r) {
            const double c = pool.cap(s, r);
            if (c > 0) a += (np * dp[r] + nw * dw[r]) / c * (pool.free(s, r) / c);
          }
          align_[k] = a;
          a_sum += a;
          ++fitting;
        }
        if (fitting == 0) break;
        const double eps = rw_mean > 0 ? (a_sum / fitting) / rw_mean * knob_ : 0.0;
        double best_score = -std::numeric_limits<double>::infinity();
        for (size_t k = 0; k < cand_.size(); ++k) {
          if (align_[k] < 0) continue;
          const double score = align_[k] - eps * rw_[cand_[k]];
          if (score > best_score) {
            best_score = score;
            best_ = cand_[k];
          }
        }
        const PsJobSpec& job = *jobs[best_].job->ps;
        int np, nw;
        unit(job, best_, np, nw);
        pool.add(s, job.ps, np);
        pool.add(s, job.worker, nw);
        add_tasks(out[best_], job, s, nw, np);
        ps_[best_] += np;
        wk_[best_] += nw;
      }
    }
  }

 private:
  void unit(const PsJobSpec& job, int i, int& np, int& nw) const {
    if (ps_[i] == 0 && wk_[i] == 0) {
      np = nw = 1;
      return;
    }
    const bool as_ps = next_task_is_ps(job, ps_[i], wk_[i]);
    np = as_ps ? 1 : 0;
    nw = as_ps ? 0 : 1;
  }

  double fairness_, knob_;
  std::unique_ptr<PsPool> pool_;
  std::vector<int> ps_, wk_, cand_;
  std::vector<double> share_, rw_, align_;
  int best_ = -1;
};

}  // namespace

std::unique_ptr<Policy> make_ps_tetris(const PolicyOptions&, const Knobs& knobs) {
  return std::make_unique<PsTetris>(knobs);
}

}  // namespace dmlkit::cluster
