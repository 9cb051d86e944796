// PS job progress, measurements and losses; see ps_progress.h.
// Assumptions [A]: stragglers are drawn when the job is (re)started and persist until its next
// placement change (a slow server); measurement noise is multiplicative N(1, noise); a probe's cost
// is paid before the job's next progress (the job is stopped while it is measured).
#include "cluster/speed/ps_progress.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster/speed/allreduce_speed.h"
#include "cluster/speed/ps_assignment.h"
#include "core/error.h"
#include "core/rng.h"

namespace dmlkit::cluster {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kLossStream = 0x10550000ULL;
constexpr uint64_t kNoiseStream = 0x2000000000ULL;
constexpr uint64_t kStragglerStream = 0x3000000000ULL;
const PsJobSpec& checked_spec(const Job& job) {
  if (!job.ps) throw Error(job.source_file, job.source_line, "kind", "parameter-server job without a PS shape");
  return *job.ps;
}
}  // namespace

PsProgress::PsProgress(const Job& job, const ProgressOptions& options)
    : spec_(checked_spec(job)),
      speed_(options.ps_speed.get()),
      balance_(options.ps_balance.get()),
      measure_noise_(options.ps_measure_noise),
      straggler_prob_(options.ps_straggler_prob),
      straggler_min_(options.ps_straggler_min),
      straggler_max_(options.ps_straggler_max) {
  if (speed_ == nullptr) throw Error("simulator: no PS speed model configured");
  validate_ps_job(spec_, job.source_file, job.source_line);
}

double PsProgress::comm_scale(int p) const {
  if (balance_ == nullptr) return 1.0;
  const double imb = balance_->imbalance(spec_.type, p);
  return speed_->placement_aware() ? imb : imb / balance_->mxnet_imbalance(spec_.type, p);
}

void PsProgress::on_placement(const Placement& placement) {
  int p = 0, w = 0;
  for (const Slice& s : placement) {
    p += s.ps;
    w += s.workers;
  }
  slowdowns_.assign(w, 1.0);
  ++placements_;
  if (w == 0 || (p == 0 && !spec_.allreduce)) {
    rate_epochs_per_s_ = base_rate_epochs_per_s_ = 0;
    factor_ = 1.0;
    return;
  }
  double pace = 1.0;  // multiplier of the healthy speed
  if (straggler_prob_ > 0) {
    Rng rng = Rng(spec_.seed).split(kStragglerStream + placements_);
    double worst = 1.0, inv_sum = 0;
    for (double& s : slowdowns_) {
      if (rng.uniform() < straggler_prob_) s = rng.uniform(straggler_min_, straggler_max_);
      worst = std::max(worst, s);
      inv_sum += 1.0 / s;
    }
    pace = spec_.mode == PsTrainingMode::Sync ? 1.0 / worst : inv_sum / w;
  }
  const double v = (spec_.allreduce ? allreduce_samples_per_s(spec_, w, &placement)
                                    : speed_->samples_per_s(spec_, p, w, &placement, comm_scale(p))) *
                   pace;
  base_rate_epochs_per_s_ = v / spec_.job_type().epoch_size;
  rate_epochs_per_s_ = base_rate_epochs_per_s_ * factor_;
}

double PsProgress::advance(double dt_s) {
  if (finished_ || !(dt_s > 0)) return 0;
  double used = 0;
  if (probe_cost_left_s_ > 0) {
    const double c = std::min(probe_cost_left_s_, dt_s);
    probe_cost_left_s_ -= c;
    used += c;
    dt_s -= c;
    if (dt_s <= 0) return used;
  }
  if (rate_epochs_per_s_ <= 0) return used + dt_s;
  const double left = spec_.total_epochs - epochs_;
  const double need_s = left / rate_epochs_per_s_;
  if (need_s <= dt_s) {
    epochs_ = spec_.total_epochs;
    finished_ = true;
    return used + need_s;
  }
  epochs_ += rate_epochs_per_s_ * dt_s;
  return used + dt_s;
}

double PsProgress::time_to_finish_s() const {
  if (finished_) return 0;
  if (rate_epochs_per_s_ <= 0) return kInf;
  return probe_cost_left_s_ + (spec_.total_epochs - epochs_) / rate_epochs_per_s_;
}

double PsProgress::remaining_time_s(int gpus) const {
  const int n = std::max(1, gpus);
  const double v = true_speed(n, n) / spec_.job_type().epoch_size;
  return v > 0 ? (spec_.total_epochs - epochs_) / v : kInf;
}

int PsProgress::losses_observed() const {
  return static_cast<int>(std::floor(epochs_ / spec_.eval_every_epochs + 1e-9));
}

double PsProgress::observed_loss(int k) const {
  Rng rng = Rng(spec_.seed).split(kLossStream + static_cast<uint64_t>(k));
  return loss_curve(spec_, k) + (spec_.loss_noise_sd > 0 ? rng.normal(0, spec_.loss_noise_sd) : 0.0);
}

double PsProgress::noise() const {
  if (measure_noise_ <= 0) return 0;
  Rng rng = Rng(spec_.seed).split(kNoiseStream + draws_++);
  return rng.normal(0, measure_noise_);
}

double PsProgress::measure_speed(int p, int w, double cost_s) const {
  if (cost_s > 0) probe_cost_left_s_ += cost_s;
  return std::max(0.0, true_speed(p, w) * (1.0 + noise()));
}

double PsProgress::observed_speed() const { return std::max(0.0, current_speed() * (1.0 + noise())); }

double PsProgress::true_speed(int p, int w) const {
  if (spec_.allreduce) return allreduce_samples_per_s(spec_, w, nullptr);
  return speed_->samples_per_s(spec_, p, w, nullptr, comm_scale(p));
}

}  // namespace dmlkit::cluster
