// DL2's slot: window, state, mask, actions; see dl2_slot.h.
#include "cluster/policies/dl2/dl2_slot.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace dmlkit::cluster {

void Dl2Slot::begin(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out,
                    bool initial_bundle) {
  if (!pool_) pool_ = std::make_unique<PsPool>(*view.cluster);
  pool_->reset();
  jobs_ = jobs;
  const size_t n = jobs.size();
  w_.assign(n, 0);
  p_.assign(n, 0);
  share_.assign(n, 0.0);
  type_.resize(n);
  stay_.resize(n);
  remaining_.resize(n);
  window_stale_ = true;
  for (auto& o : out) o.clear();
  const double slot_s = std::isfinite(view.round_s) && view.round_s > 0 ? view.round_s : 1.0;
  for (size_t i = 0; i < n; ++i) {
    const PsJobMonitor* m = ps_monitor(jobs[i]);
    if (m == nullptr) throw Error("dl2 schedules parameter-server jobs only ('" + jobs[i].job->name + "' is not one)");
    type_[i] = static_cast<float>(m->spec().type + 1);
    stay_[i] = static_cast<float>(std::floor((view.now_s - jobs[i].job->arrival_s) / slot_s + 1e-9));
    remaining_[i] = static_cast<float>(1.0 - m->epochs_done() / m->true_total_epochs());
  }
  if (!initial_bundle) return;
  for (size_t i = 0; i < n; ++i) add(static_cast<int>(i), Dl2Task::Bundle, out);
}

void Dl2Slot::update_share(int job) {
  share_[job] = cluster::dominant_share(*pool_, *jobs_[job].job->ps, p_[job], w_[job]);
}

void Dl2Slot::count(int job, Dl2Task task) {
  if (task != Dl2Task::Ps) ++w_[job];
  if (task != Dl2Task::Worker) ++p_[job];
  if (w_[job] >= shape_.max_workers && p_[job] >= shape_.max_ps) window_stale_ = true;
  update_share(job);
}

bool Dl2Slot::add(int job, Dl2Task task, std::span<Placement> out) {
  const PsJobSpec& spec = *jobs_[job].job->ps;
  const int nw = task != Dl2Task::Ps ? 1 : 0;
  const int np = task != Dl2Task::Worker ? 1 : 0;
  const int s = pool_->least_loaded(spec.worker, nw, spec.ps, np);
  if (s < 0) return false;
  if (!pool_->fits(s, spec.worker, nw, spec.ps, np)) return false;
  pool_->add(s, spec.worker, nw, spec.ps, np);
  add_tasks(out[job], spec, s, nw, np);
  count(job, task);
  return true;
}

void Dl2Slot::select_window(Rng* shuffle) {
  const int L = shape_.window;
  window_stale_ = false;
  window_.assign(L, -1);
  perm_.resize(L);
  std::iota(perm_.begin(), perm_.end(), 0);
  if (shuffle != nullptr) shuffle->shuffle(perm_.begin(), perm_.end());
  int col = 0;
  for (size_t i = 0; i < jobs_.size() && col < L; ++i) {
    if (w_[i] >= shape_.max_workers && p_[i] >= shape_.max_ps) continue;
    window_[perm_[col++]] = static_cast<int>(i);
  }
}

bool Dl2Slot::refresh_window() {
  if (!window_stale_) return false;
  select_window(nullptr);
  return true;
}

int Dl2Slot::column_of(int job) const {
  for (int c = 0; c < shape_.window; ++c)
    if (window_[c] == job) return c;
  return -1;
}

void Dl2Slot::observe(float* state) const {
  for (int c = 0; c < shape_.window; ++c) observe_column(state, c);
}

void Dl2Slot::observe_column(float* state, int c) const {
  const int L = shape_.window;
  const int j = window_[c];
  if (j < 0) {
    for (int r = 0; r < kDl2Rows; ++r) state[r * L + c] = 0.0f;
    return;
  }
  state[0 * L + c] = type_[j];
  state[1 * L + c] = stay_[j];
  state[2 * L + c] = remaining_[j];
  state[3 * L + c] = static_cast<float>(share_[j]);
  state[4 * L + c] = static_cast<float>(w_[j]);
  state[5 * L + c] = static_cast<float>(p_[j]);
}

void Dl2Slot::mask(unsigned char* mask) const {
  for (int c = 0; c < shape_.window; ++c) mask_column(mask, c);
  mask[shape_.void_action()] = 1;
}

void Dl2Slot::mask_column(unsigned char* mask, int c) const {
  const int j = window_[c];
  const bool worker_full = j >= 0 && w_[j] >= shape_.max_workers;
  const bool ps_full = j >= 0 && p_[j] >= shape_.max_ps;
  mask[3 * c] = j >= 0 && !worker_full;
  mask[3 * c + 1] = j >= 0 && !ps_full;
  mask[3 * c + 2] = j >= 0 && !worker_full && !ps_full;
}

bool Dl2Slot::any_job_action() const {
  for (int c = 0; c < shape_.window; ++c) {
    const int j = window_[c];
    if (j >= 0 && (w_[j] < shape_.max_workers || p_[j] < shape_.max_ps)) return true;
  }
  return false;
}

}  // namespace dmlkit::cluster
