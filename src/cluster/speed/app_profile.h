// Measured application profiles (data/app-profiles/<app>/) and the application constants of the
// Pollux reference simulator (petuum/adaptdl, simulator/applications.py): step and sync time by
// placement and local batch size, gradient statistics and progress curves by epoch. Lookups give
// the same values as the reference (interp1d / LinearNDInterpolator); docs/cluster-speed-models.md
// says exactly how and what happens outside the measured ranges.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace dmlkit::cluster {

class LinearNDInterpolator;

struct StepSyncTime {
  double step_s = 0;  // time of one synchronous step (compute + gradient sync)
  double sync_s = 0;  // the sync part of it (not repeated by gradient accumulation)
};

struct GradStats {
  double sqr = 0;  // squared norm of the true gradient
  double var = 0;  // gradient noise variance
};

// How a global batch is split: each replica runs accum_steps + 1 micro-batches of atomic_bsz.
struct BatchConfig {
  int atomic_bsz = 0;
  int accum_steps = 0;
};

// When a single replica must accumulate gradients (the reference has two rules).
enum class SingleReplicaAccumulation {
  IfAboveInitBatch,  // a running job (Job.update_local_bsz): when batch_size > init_batch_size
  Always,            // the reference Optimus' step-time predictor: always
};

class AppProfile {
 public:
  // The profile of application `name`, loaded from <data_dir>/app-profiles/<name>/ on first use
  // and cached for the process (data_dir "" = the bundled data). Throws Error if the application
  // is not one of known_applications() or its files are malformed. Thread-safe: the cache is
  // guarded, a profile is loaded once and never moves or changes afterwards, and its lazily built
  // parts (the triangulation, the packed step-time cache) are guarded too (docs/performance.md).
  static const AppProfile& get(const std::string& name, const std::string& data_dir = "");
  static const std::vector<std::string>& known_applications();
  static bool is_known(const std::string& name);
  // "bert, cifar10, deepspeech2, imagenet, ncf, yolov3"
  static std::string known_list();

  // The reference's placement key: zero entries dropped, lexicographically smallest rotation,
  // decimal digits concatenated (e.g. {4,1,1,4} -> "1144").
  static std::string placement_id(std::span<const int> gpus_per_node);
  // (4, 4, ..., rem): the packed placement of `replicas` GPUs on nodes of `per_node` GPUs.
  static std::vector<int> packed_placement(int replicas, int per_node = 4);

  AppProfile(const std::string& name, const std::string& dir);
  ~AppProfile();
  AppProfile(const AppProfile&) = delete;
  AppProfile& operator=(const AppProfile&) = delete;

  const std::string& name() const { return name_; }
  int init_batch_size() const { return init_batch_size_; }
  int max_batch_size() const { return max_batch_size_; }
  int min_local_bsz() const { return min_local_bsz_; }
  int max_local_bsz() const { return max_local_bsz_; }
  int max_epochs() const { return max_epochs_; }
  // No application has a target metric, so a job completes after max_epochs epochs: the
  // reference's completion epoch is max_epochs - 1 and a job is done once epoch > it.
  int completion_epoch() const { return max_epochs_ - 1; }
  const std::vector<int>& validated_batch_sizes() const { return batch_sizes_; }
  // Largest useful replica count for a job of `batch_size` (reference: batch_size //
  // min_local_bsz, at least 1; ncf: 1).
  int max_replicas(int batch_size) const;
  // Most replicas of any measured configuration (64 for the bundled profiles).
  int max_measured_replicas() const { return max_measured_replicas_; }

  // Accumulation steps and atomic batch size of `batch_size` on `replicas` GPUs (reference
  // update_local_bsz): local = ceil(bsz / replicas), accum = ceil(local / max_local_bsz) - 1
  // (raised to 1 on a single replica per `rule`), atomic = ceil(local / (accum + 1)), then atomic
  // capped at int(max_batch_size / (replicas * (accum + 1))).
  BatchConfig batch_config(int batch_size, int replicas, SingleReplicaAccumulation rule) const;

  // Step and sync time (reference get_throughput). Throws Error naming the application, the
  // placement and the batch size when the reference would fail: a listed placement asked outside
  // its measured local-batch range, or an unlisted one outside the convex hull of the
  // (num_nodes, num_replicas, local_bsz) data.
  StepSyncTime step_sync_time(std::span<const int> gpus_per_node, double atomic_bsz) const;
  // Same, but returns nullopt instead of throwing. With clamp, the local batch size is first
  // clamped into the measured range (of the placement, or of the application for unlisted
  // placements): the dmlkit default profile's choice outside the data.
  std::optional<StepSyncTime> try_step_sync_time(std::span<const int> gpus_per_node, double atomic_bsz,
                                                 bool clamp) const;

  // Gradient statistics during 0-based `epoch` at `batch_size` (reference get_grad_stats:
  // linear interpolation between the validated batch sizes on either side). Throws Error if the
  // batch size is outside the validated range or the epoch beyond the curves.
  GradStats grad_stats(double batch_size, int epoch) const;
  // Progress (in init-batch iterations) at which `epoch` epochs are done: 0 for epoch 0, else
  // the minimum over the validated batch sizes of `progress` at row epoch-1.
  double progress_at_epoch(int epoch) const;
  // Iterations done after finishing 0-based `epoch` at `batch_size` (reference get_iteration).
  double iteration_at(double batch_size, int epoch) const;
  // The reference Optimus' oracle figure: iteration_at(completion_epoch) - iteration_at(epoch),
  // or 1 once epoch >= completion_epoch.
  double oracle_remaining_iterations(double batch_size, int epoch) const;
  // The reference Optimus' T(n): step time (with accumulation) of `batch_size` on the packed
  // placement of `replicas` GPUs, with the Always single-replica rule. Infinity when the
  // configuration is outside the data (the reference would fail there). Cached per application.
  double packed_step_time_s(int batch_size, int replicas) const;

 private:
  struct Curve {  // one listed placement: measured points sorted by local batch size
    std::vector<double> local_bsz, step_s, sync_s;
  };
  struct Validation {  // one validated batch size: per-epoch rows
    std::vector<double> progress, iteration, grad_sqr, grad_var;
  };
  void load(const std::string& dir);
  const LinearNDInterpolator& nd() const;
  std::optional<StepSyncTime> lookup(std::span<const int> gpus_per_node, double atomic_bsz, bool clamp,
                                     std::string* why) const;
  void bracket(double batch_size, size_t& lo, size_t& hi) const;

  std::string name_;
  std::string dir_;
  int init_batch_size_ = 0, max_batch_size_ = 0, min_local_bsz_ = 0, max_local_bsz_ = 0;
  int max_epochs_ = 0;
  int max_replicas_cap_ = 0;  // 0: none
  int max_measured_replicas_ = 0;
  std::unordered_map<std::string, Curve> curves_;
  std::vector<int> batch_sizes_;               // validated batch sizes, ascending
  std::vector<Validation> validation_;         // same order
  std::vector<double> epoch_progress_;         // progress_at_epoch(e) for e = 0..min rows
  std::vector<double> nd_points_, nd_values_;  // (num_nodes, num_replicas, local_bsz) -> (step, sync)
  double nd_min_bsz_ = 0, nd_max_bsz_ = 0;
  // Built on first use, once (std::call_once), then read-only.
  mutable std::once_flag nd_once_;
  mutable std::unique_ptr<LinearNDInterpolator> nd_;
  // Memo of packed_step_time_s, shared by every simulation of the process: read under a shared
  // lock, filled under an exclusive one (a value is a pure function of its key).
  mutable std::shared_mutex packed_mutex_;
  mutable std::unordered_map<long long, double> packed_cache_;
};

}  // namespace dmlkit::cluster
