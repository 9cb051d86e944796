// Progress model of a trace-replay job (WorkKind::FixedDuration): the job needs
// duration_s * num_gpus GPU-seconds of work and does min(g, num_gpus) GPU-seconds of it per second
// on g GPUs (linear scaling, never faster than its request) [A]. Optionally a job spread over more
// servers than it needs runs slower (extra_server_slowdown, off by default). Preemption loses no
// work: the remaining GPU-seconds carry over (the restart delay is charged by the simulator).
// See docs/cluster-speed-models.md.
#pragma once
#include <algorithm>

#include "cluster/speed/progress_model.h"

namespace dmlkit::cluster {

class FixedDurationProgress final : public JobProgress {
 public:
  FixedDurationProgress(const Job& job, const ProgressOptions& options);

  void on_placement(const Placement& placement) override;
  // Defined here so that the simulator, which steps every running job at every decision, can
  // inline it (the class is final: a call through a FixedDurationProgress* is direct).
  double advance(double dt_s) override {
    if (finished_ || dt_s <= 0) return finished_ ? 0.0 : std::max(0.0, dt_s);
    if (rate_ <= 0) return dt_s;  // stopped: time passes, no work is done
    const double to_finish_s = remaining_gpu_s_ / rate_;
    if (rate_ * dt_s >= remaining_gpu_s_ - kDoneFraction * total_gpu_s_) {
      remaining_gpu_s_ = 0;
      finished_ = true;
      return std::min(dt_s, to_finish_s);
    }
    remaining_gpu_s_ -= rate_ * dt_s;
    return dt_s;
  }
  bool finished() const override { return finished_; }
  double time_to_finish_s() const override;

  double remaining_time_s(int gpus) const override;
  double step_time_s(int gpus) const override { return remaining_time_s(gpus); }
  double remaining_iterations() const override { return 0.0; }
  int max_gpus() const override { return request_gpus_; }

  double remaining_gpu_s() const { return remaining_gpu_s_; }
  // Work rate (GPU-seconds of work per second) on `placement`.
  double rate_on(const Placement& placement) const;

 private:
  // Work left below this fraction of the total counts as done (absorbs rounding when the simulator
  // advances a job by exactly time_to_finish_s() computed as a difference of clock readings).
  static constexpr double kDoneFraction = 1e-12;
  int request_gpus_ = 1;
  double total_gpu_s_ = 0;
  double remaining_gpu_s_ = 0;
  double rate_ = 0;  // on the current placement; 0 when stopped
  double extra_server_slowdown_ = 0;
  int gpus_per_server_ = 0;
  bool finished_ = false;
};

}  // namespace dmlkit::cluster
