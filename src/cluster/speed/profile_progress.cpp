// Profile-based job progress (the Pollux reference simulator's Job model); see
// profile_progress.h and docs/cluster-speed-models.md.
#include "cluster/speed/profile_progress.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace dmlkit::cluster {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// The profiles were measured on nodes of at most 4 GPUs; the packed placements of the oracle use
// 4 per node as the reference does.
constexpr int kProfileGpusPerNode = 4;
// Default profile only: an epoch boundary this close (relative) counts as reached, so that
// advancing by exactly time_to_finish_s() finishes the job despite rounding.
constexpr double kCrossTolerance = 1e-12;
}  // namespace

ProfileProgress::ProfileProgress(const Job& job, const AppProfile& app, const ProgressOptions& options)
    : app_(&app), job_batch_size_(job.batch_size), pollux_(options.pollux_semantics) {}

std::vector<int> ProfileProgress::nodes_of(const Placement& placement) const {
  std::vector<int> nodes;
  for (const auto& s : placement) {
    if (s.gpus <= 0) continue;
    if (pollux_) {
      nodes.push_back(s.gpus);
      continue;
    }
    // [A] A server with more GPUs than any measured node is modelled as several full nodes.
    for (int left = s.gpus; left > 0; left -= kProfileGpusPerNode) nodes.push_back(std::min(left, kProfileGpusPerNode));
  }
  return nodes;
}

bool ProfileProgress::configure(const std::vector<int>& nodes, BatchConfig& bc, double& step_s, double& sync_s,
                                bool strict) const {
  int replicas = 0;
  for (int g : nodes) replicas += g;
  bc = app_->batch_config(job_batch_size_, replicas, SingleReplicaAccumulation::IfAboveInitBatch);
  auto st = app_->try_step_sync_time(nodes, bc.atomic_bsz, !strict);
  if (!st) return false;
  step_s = st->step_s;
  sync_s = st->sync_s;
  return true;
}

void ProfileProgress::on_placement(const Placement& placement) {
  nodes_ = nodes_of(placement);
  replicas_ = 0;
  for (int g : nodes_) replicas_ += g;
  if (nodes_.empty()) {  // stopped (reference reallocate(()): atomic batch size 0, accum kept)
    atomic_bsz_ = 0;
    step_s_ = sync_s_ = iteration_time_s_ = 0;
    return;
  }
  BatchConfig bc;
  if (!configure(nodes_, bc, step_s_, sync_s_, pollux_)) {
    app_->step_sync_time(nodes_, bc.atomic_bsz);  // throws the Error naming app, placement, batch
    throw Error(app_->name() + ": no step time for this placement");
  }
  atomic_bsz_ = bc.atomic_bsz;
  accum_steps_ = bc.accum_steps;
  iteration_time_s_ = step_s_ + (step_s_ - sync_s_) * accum_steps_;
}

double ProfileProgress::goodput_at(int epoch, int batch_size, double iteration_time_s) const {
  double b = batch_size;
  if (!pollux_) {
    const auto& v = app_->validated_batch_sizes();
    b = std::clamp(b, static_cast<double>(v.front()), static_cast<double>(v.back()));
  }
  const GradStats g = app_->grad_stats(b, epoch);
  const double scale = static_cast<double>(batch_size) / app_->init_batch_size();
  const double gain = (g.var + g.sqr) / (g.var / scale + g.sqr);
  return gain / iteration_time_s;
}

double ProfileProgress::advance(double dt_s) {
  if (finished_) return 0.0;
  if (nodes_.empty() || !(dt_s > 0)) return std::max(0.0, dt_s);
  double seconds = dt_s;
  const int bsz = batch_size();
  while (seconds > 0 && !finished_) {
    const double goodput = goodput_at(epoch_, bsz, iteration_time_s_);
    const double next = app_->progress_at_epoch(epoch_ + 1);
    const double reach = pollux_ ? next : next - kCrossTolerance * std::fabs(next);
    if (progress_ + goodput * seconds < reach) {
      progress_ += goodput * seconds;  // the whole interval inside this epoch
      seconds = 0;
      break;
    }
    // Crosses the epoch boundary after delta seconds.
    ++epoch_;
    double delta = (next - progress_) / goodput;
    if (pollux_) delta = std::nearbyint(delta);  // Python round(): half to even
    delta = std::min(delta, seconds);
    if (epoch_ > app_->completion_epoch()) finished_ = true;
    progress_ = next;
    seconds -= delta;
  }
  return finished_ ? dt_s - seconds : dt_s;
}

double ProfileProgress::time_to_finish_s() const {
  if (finished_) return 0.0;
  if (nodes_.empty()) return kInf;
  const int bsz = batch_size();
  double needed = 0, used = 0, p = progress_;
  for (int e = epoch_; e <= app_->completion_epoch(); ++e) {
    const double next = app_->progress_at_epoch(e + 1);
    const double x = (next - p) / goodput_at(e, bsz, iteration_time_s_);
    needed = std::max(needed, used + x);  // advance() crosses epoch e only with >= x seconds left
    used += pollux_ ? std::nearbyint(x) : x;
    p = next;
  }
  return needed;
}

double ProfileProgress::remaining_time_s(int gpus) const {
  if (finished_) return 0.0;
  if (gpus <= 0) return kInf;
  const std::vector<int> nodes = AppProfile::packed_placement(gpus, kProfileGpusPerNode);
  BatchConfig bc;
  double step = 0, sync = 0;
  if (!configure(nodes, bc, step, sync, pollux_)) return kInf;
  const double it = step + (step - sync) * bc.accum_steps;
  const int bsz = gpus * bc.atomic_bsz * (bc.accum_steps + 1);
  if (pollux_) {
    const auto& v = app_->validated_batch_sizes();
    if (bsz < v.front() || bsz > v.back()) return kInf;
  }
  double total = 0, p = progress_;
  for (int e = epoch_; e <= app_->completion_epoch(); ++e) {
    const double next = app_->progress_at_epoch(e + 1);
    total += (next - p) / goodput_at(e, bsz, it);
    p = next;
  }
  return total;
}

double ProfileProgress::step_time_s(int gpus) const { return app_->packed_step_time_s(job_batch_size_, gpus); }

double ProfileProgress::remaining_iterations() const {
  return app_->oracle_remaining_iterations(job_batch_size_, epoch_);
}

int ProfileProgress::max_gpus() const {
  return std::max(1, std::min(app_->max_replicas(job_batch_size_), app_->max_measured_replicas()));
}

}  // namespace dmlkit::cluster
