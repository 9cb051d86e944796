// Progress model of a job with a measured application profile (WorkKind::Profile), following the
// Pollux reference simulator's Job.step / update_local_bsz / reallocate exactly: the job's batch
// size is split into accumulation steps and atomic batches per placement, each epoch progresses at
// gain / step_time init-batch iterations per second (gain = statistical efficiency of the larger
// batch), and the job is done after max_epochs epochs. With pollux_semantics, epoch crossings are
// rounded to whole seconds (Python round(): half to even) and lookups outside the data raise an
// Error, as the reference fails there; otherwise crossings are exact and lookups are clamped to
// the data. The restart delay is the simulator's. See docs/cluster-speed-models.md.
#pragma once
#include <vector>

#include "cluster/speed/app_profile.h"
#include "cluster/speed/progress_model.h"

namespace dmlkit::cluster {

class ProfileProgress final : public JobProgress {
 public:
  // `app` must outlive this object (AppProfile::get's cache does).
  ProfileProgress(const Job& job, const AppProfile& app, const ProgressOptions& options);

  void on_placement(const Placement& placement) override;
  double advance(double dt_s) override;
  bool finished() const override { return finished_; }
  // The smallest dt for which advance(dt) finishes the job on its current placement.
  double time_to_finish_s() const override;

  // Exact remaining time on the packed placement (4, 4, ..., rem) of `gpus` GPUs from the current
  // epoch and progress; infinity if that configuration is outside the data.
  double remaining_time_s(int gpus) const override;
  // The reference Optimus' T(n) for the job's batch size (AppProfile::packed_step_time_s).
  double step_time_s(int gpus) const override;
  // The reference Optimus' oracle (AppProfile::oracle_remaining_iterations at the current epoch).
  double remaining_iterations() const override;
  // batch_size // min_local_bsz (ncf: 1), capped at the largest replica count in the data.
  int max_gpus() const override;

  int epoch() const { return epoch_; }
  double progress() const { return progress_; }  // init-batch iterations done
  int atomic_bsz() const { return atomic_bsz_; }
  int accum_steps() const { return accum_steps_; }
  int replicas() const { return replicas_; }
  // Effective batch size on the current placement: replicas * atomic_bsz * (accum_steps + 1).
  int batch_size() const { return replicas_ * atomic_bsz_ * (accum_steps_ + 1); }
  double step_s() const { return step_s_; }
  double sync_s() const { return sync_s_; }
  // Init-batch iterations per second during the current epoch on the current placement.
  double goodput() const { return goodput_at(epoch_, batch_size(), iteration_time_s_); }

 private:
  // Per-node GPU counts the profile is looked up with (see on_placement).
  std::vector<int> nodes_of(const Placement& placement) const;
  double goodput_at(int epoch, int batch_size, double iteration_time_s) const;
  // Batch config and iteration time on `nodes`; false if outside the data (non-strict lookups).
  bool configure(const std::vector<int>& nodes, BatchConfig& bc, double& step_s, double& sync_s, bool strict) const;

  const AppProfile* app_ = nullptr;
  int job_batch_size_ = 0;
  bool pollux_ = false;
  int epoch_ = 0;
  double progress_ = 0;
  bool finished_ = false;
  // Current placement (empty: stopped).
  std::vector<int> nodes_;
  int replicas_ = 0;
  int atomic_bsz_ = 0;
  int accum_steps_ = 0;
  double step_s_ = 0, sync_s_ = 0;
  double iteration_time_s_ = 0;  // step + (step - sync) * accum_steps
};

}  // namespace dmlkit::cluster
