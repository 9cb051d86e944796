// Progress model of a parameter-server job (WorkKind::ParameterServer): epochs accrue at
// speed(p, w, placement) / epoch_size, where p and w are the PS and worker counts of the
// placement's slices; no progress without at least one of each. The speed comes from the
// configured ground-truth model (ps_speed.h), scaled by the PS load balance of the assignment in
// use and by injected stragglers (a synchronous job runs at the pace of its slowest worker, an
// asynchronous one at the mean of its workers' paces). Also the job's PsJobMonitor: synthetic
// validation losses, noisy speed measurements (a probe's cost is charged to the job's next run)
// and oracle answers. See docs/optimus.md.
#pragma once
#include <vector>

#include "cluster/speed/progress_model.h"
#include "cluster/model/ps_job.h"
#include "cluster/speed/ps_speed.h"

namespace dmlkit::cluster {

class PsProgress final : public JobProgress, public PsJobMonitor {
 public:
  PsProgress(const Job& job, const ProgressOptions& options);

  // JobProgress
  void on_placement(const Placement& placement) override;
  double advance(double dt_s) override;
  bool finished() const override { return finished_; }
  double time_to_finish_s() const override;

  // JobOracle (GPU-centric questions answered for p = w = gpus)
  double remaining_time_s(int gpus) const override;
  double step_time_s(int gpus) const override { return remaining_time_s(gpus); }
  double remaining_iterations() const override { return 0.0; }
  int max_gpus() const override { return 16; }

  // PsJobMonitor
  const PsJobSpec& spec() const override { return spec_; }
  double epochs_done() const override { return epochs_; }
  int losses_observed() const override;
  double observed_loss(int k) const override;
  double measure_speed(int p, int w, double cost_s) const override;
  double observed_speed() const override;
  std::span<const double> worker_slowdowns() const override { return slowdowns_; }
  double true_speed(int p, int w) const override;
  double true_total_epochs() const override { return spec_.total_epochs; }

  // Speed (samples/s) on the current placement, stragglers, balance and interference included.
  double current_speed() const { return rate_epochs_per_s_ * spec_.job_type().epoch_size; }
  // Co-location interference (speed/interference.h): multiplies the speed on the current placement
  // by `factor` (in (0, 1]; 1 = none) from now on. The simulator sets it after every placement
  // change on the job's servers, with the job brought up to date first.
  void set_interference_factor(double factor) {
    factor_ = factor;
    rate_epochs_per_s_ = base_rate_epochs_per_s_ * factor_;
  }
  double interference_factor() const { return factor_; }

 private:
  double comm_scale(int p) const;
  double noise() const;  // one N(0, measure_noise) draw

  const PsJobSpec& spec_;
  const PsSpeedModel* speed_;
  const PsBalanceTable* balance_;
  double measure_noise_;
  double straggler_prob_, straggler_min_, straggler_max_;
  double epochs_ = 0;
  double rate_epochs_per_s_ = 0;       // base_rate_epochs_per_s_ x factor_
  double base_rate_epochs_per_s_ = 0;  // without interference
  double factor_ = 1.0;
  int placements_ = 0;
  std::vector<double> slowdowns_;
  mutable double probe_cost_left_s_ = 0;
  mutable uint64_t draws_ = 0;
  bool finished_ = false;
};

}  // namespace dmlkit::cluster
