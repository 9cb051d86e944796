// Shared simulator bookkeeping: job state, running a job for a stretch of time, one policy
// decision (views, validation, application) and the final SimResult. See sim_core.h.
#include "cluster/sim/sim_core.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <sstream>
#include <stdexcept>

#include "core/data_dir.h"
#include "cluster/speed/ps_assignment.h"
#include "cluster/speed/ps_speed.h"
#include "core/error.h"

namespace dmlkit::cluster::detail {

namespace {
constexpr uint64_t kProgressEvery = 1024;  // decisions between two on_progress calls

std::string format_time(double t_s) {
  std::ostringstream os;
  os.precision(12);
  os << t_s;
  return os.str();
}
}  // namespace

SimRun::SimRun(const ClusterSpec& cluster, const Workload& workload, const std::string& policy_name, Policy& policy,
               const SimConfig& config)
    : cluster_(cluster), workload_(workload), policy_name_(policy_name), policy_(policy), config_(config) {
  // +inf (no rounds) only for the event-driven loop; the Pollux loop ticks every round_s.
  if (!(config_.round_s > 0) || (!std::isfinite(config_.round_s) && config_.profile == SimProfile::Pollux))
    throw Error("simulator: the scheduling round must be a positive number of seconds (got " +
                format_time(config_.round_s) + ")");
  if (!(config_.restart_delay_s >= 0) || !std::isfinite(config_.restart_delay_s))
    throw Error("simulator: the restart delay must be a non-negative number of seconds (got " +
                format_time(config_.restart_delay_s) + ")");
  for (const double latency_s : {config_.arrival_latency_s, config_.start_latency_s, config_.restart_latency_s})
    if (!(latency_s >= 0) || !std::isfinite(latency_s))
      throw Error("simulator: a cluster-manager latency must be a non-negative number of seconds (got " +
                  format_time(latency_s) + ")");
  int max_per_server = 0;
  for (const auto& s : cluster_.servers) {
    if (s.gpus < 0) throw Error("simulator: server '" + s.name + "' has a negative GPU count");
    total_gpus_ += s.gpus;
    max_per_server = std::max(max_per_server, s.gpus);
  }
  ProgressOptions popts;
  popts.data_dir = config_.data_dir.empty() ? default_data_dir() : config_.data_dir;
  popts.pollux_semantics = config_.profile == SimProfile::Pollux;
  popts.gpus_per_server = max_per_server;
  popts.extra_server_slowdown = config_.extra_server_slowdown;
  bool has_gpu_jobs = false;
  for (const Job& job : workload_.jobs) {
    if (job.kind == WorkKind::ParameterServer)
      has_ps_jobs_ = true;
    else
      has_gpu_jobs = true;
  }
  // A policy of parameter-server jobs only (optimus, the DL2 simulator's heuristics) on a GPU
  // workload: say what to run instead, not which job it tripped on.
  if (const PolicyEntry* entry = policy_registry().find(policy_name_);
      has_gpu_jobs && entry != nullptr && !entry->traits.gpu_jobs) {
    std::string gpu;
    for (const auto& info : policy_registry().entries())
      if (info.traits.gpu_jobs) gpu += (gpu.empty() ? "" : ", ") + info.name;
    throw Error("policy '" + policy_name_ +
                "' schedules parameter-server jobs only, and this workload has GPU jobs: run it on a PS workload "
                "(`dmlkit cluster compare --experiment optimus-testbed --policies " +
                policy_name_ + "`; presets: `dmlkit cluster experiments`), or choose a policy for GPU jobs (" + gpu +
                ")");
  }
  if (has_ps_jobs_) {
    if (!policy_.handles_ps_jobs()) {
      std::string known;
      for (const auto& info : policy_registry().entries())
        if (info.traits.ps_jobs) known += (known.empty() ? "" : ", ") + info.name;
      throw Error("policy '" + policy_name_ + "' does not schedule parameter-server jobs (policies that do: " + known +
                  ")");
    }
    ps_speed_ = config_.ps_speed ? config_.ps_speed : make_ps_speed_model("table", popts.data_dir);
    ps_balance_ = std::make_shared<PsBalanceTable>(popts.data_dir, parse_ps_assignment(policy_.ps_assignment()));
    popts.ps_speed = ps_speed_;
    popts.ps_balance = ps_balance_;
    popts.ps_measure_noise = config_.ps_measure_noise;
    popts.ps_straggler_prob = config_.ps_straggler_prob;
    popts.ps_straggler_min = config_.ps_straggler_min;
    popts.ps_straggler_max = config_.ps_straggler_max;
    if (!(config_.ps_straggler_prob >= 0 && config_.ps_straggler_prob <= 1))
      throw Error("simulator: the straggler probability must be in [0, 1]");
    if (!(config_.ps_straggler_min >= 1 && config_.ps_straggler_max >= config_.ps_straggler_min))
      throw Error("simulator: straggler slowdowns must satisfy 1 <= min <= max");
    const size_t ns = cluster_.servers.size();
    used_cpus_.assign(ns, 0);
    used_mem_gb_.assign(ns, 0);
    used_net_gbps_.assign(ns, 0);
  }

  const size_t n = workload_.jobs.size();
  jobs_.resize(n);
  for (size_t j = 0; j < n; ++j) {
    const Job& job = workload_.jobs[j];
    if (!std::isfinite(job.arrival_s))
      throw Error(job.source_file, job.source_line, "time", "arrival time is not a finite number");
    jobs_[j].job = &job;
    jobs_[j].progress = make_job_progress(job, popts);
    jobs_[j].fixed = dynamic_cast<FixedDurationProgress*>(jobs_[j].progress.get());
    jobs_[j].account = JobAccount::arrived_at(job.arrival_s);
    jobs_[j].last_update_s = job.arrival_s;
  }
  if (config_.interference) {
    if (!has_ps_jobs_)
      throw Error("--interference " + std::string(config_.interference->name()) +
                  ": co-location interference applies to parameter-server jobs, and this workload has none (use "
                  "--interference none)");
    interference_ = config_.interference;
    coloc_class_.assign(n, -1);
    ps_progress_.assign(n, nullptr);
    factor_.assign(n, 1.0);
    applied_factor_.assign(n, 1.0);
    for (size_t j = 0; j < n; ++j) {
      const Job& job = workload_.jobs[j];
      if (job.kind != WorkKind::ParameterServer) continue;
      const std::string& cls = colocation_class(*job.ps);
      coloc_class_[j] = interference_->class_of(cls);
      if (coloc_class_[j] < 0)
        throw Error(job.source_file, job.source_line, "type",
                    "interference model '" + std::string(interference_->name()) + "' knows no job type '" + cls +
                        "' (known: " + interference_->known_classes() + ")");
      ps_progress_[j] = dynamic_cast<PsProgress*>(jobs_[j].progress.get());
    }
  }
  arrival_order_.resize(n);
  std::iota(arrival_order_.begin(), arrival_order_.end(), 0);
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(),
                   [&](int a, int b) { return workload_.jobs[a].arrival_s < workload_.jobs[b].arrival_s; });
  slot_.assign(n, -1);
  run_pos_.assign(n, -1);
  used_per_server_.assign(cluster_.servers.size(), 0);
  free_gpus_.resize(cluster_.servers.size());
  for (size_t s = 0; s < free_gpus_.size(); ++s) free_gpus_[s] = cluster_.servers[s].gpus;
  server_gpus_ = free_gpus_;
  seen_mark_.assign(cluster_.servers.size(), 0);
}

void SimRun::arrive(int j) {
  jobs_dirty_ = true;
  list_dirty_ = true;
  ++arrived_since_;
  jobs_[j].arrived = true;
  ++arrived_count_;
  slot_[j] = static_cast<int>(active_.size());
  active_.push_back(j);
  views_.emplace_back();
  fill_view(j, views_.back());
  out_.emplace_back();
  cur_size_.push_back(static_cast<uint32_t>(jobs_[j].placement.size()));
}

void SimRun::fill_view(int j, JobView& v) const {
  const SimJob& s = jobs_[j];
  v.job = s.job;
  v.placement = s.placement;
  s.account.fill(v);
  v.oracle = s.progress.get();
}

void SimRun::set_running(int j, bool running) {
  if (running == (run_pos_[j] >= 0)) return;
  if (running) {
    run_pos_[j] = static_cast<int>(running_.size());
    running_.push_back(j);
  } else {
    const int p = run_pos_[j];
    running_[p] = running_.back();
    run_pos_[running_[p]] = p;
    running_.pop_back();
    run_pos_[j] = -1;
  }
}

void SimRun::close_placement(int j, double end_s) {
  const SimJob& s = jobs_[j];
  for (const Slice& slice : s.placement)
    placements_.push_back({s.job->id, slice.server, slice.gpus, slice.workers, slice.ps, s.placed_since_s, end_s});
}

void SimRun::mark_finished(int j, double t_s) {
  SimJob& s = jobs_[j];
  if (config_.record_placements) close_placement(j, t_s);
  s.finished = true;
  s.finish_s = t_s;
  busy_gpus_ -= s.gpus;
  take_gpus(s.placement, +1);
  jobs_dirty_ = true;
  list_dirty_ = true;
  if (interference_ && !s.placement.empty()) coloc_dirty_ = true;
  s.placement.clear();
  s.gpus = 0;
  s.restart_left_s = 0;
  set_running(j, false);
  ++finished_count_;
  // Tombstone: the slot leaves the active list at the next compaction.
  const int p = slot_[j];
  if (p >= 0) {
    views_[p].job = nullptr;
    first_dead_ = std::min(first_dead_, static_cast<size_t>(p));
    last_dead_ = std::max(last_dead_, static_cast<size_t>(p));
    slot_[j] = -1;
  }
}

bool SimRun::step_job(int j, double t0_s, double dt_s) {
  SimJob& s = jobs_[j];
  if (s.finished || s.placement.empty() || !(dt_s > 0)) return false;
  return s.fixed ? step_running_job(j, s, *s.fixed, t0_s, dt_s) : step_running_job(j, s, *s.progress, t0_s, dt_s);
}

template <typename Progress>
bool SimRun::step_running_job(int j, SimJob& s, Progress& progress, double t0_s, double dt_s) {
  s.last_update_s = t0_s + dt_s;
  const double delay_s = std::min(s.restart_left_s, dt_s);
  s.restart_left_s -= delay_s;
  double used_s = 0;
  if (dt_s - delay_s > 0 && !progress.finished()) used_s = progress.advance(dt_s - delay_s);
  const bool done = progress.finished() && s.restart_left_s <= 0;
  const double held_s = done ? delay_s + used_s : dt_s;
  s.account.credit(held_s, s.gpus);
  if (done) mark_finished(j, t0_s + held_s);
  return done;
}

void SimRun::bring_running_to(double now_s) {
  // Backwards: a job that finishes is swapped out with the last one, already stepped. The loop is
  // the simulator's hottest (every running job at every decision) and waits on memory: the jobs
  // and their progress models are spread over the whole workload, so both are prefetched a few
  // jobs ahead. Running jobs have a placement; trace jobs are stepped inline. The views the policy
  // reads are refreshed in the same pass (decide() relies on it).
  const int* run = running_.data();
  for (size_t i = running_.size(); i-- > 0;) {
    if (i >= 12) {
      __builtin_prefetch(&jobs_[run[i - 12]]);
      __builtin_prefetch(&slot_[run[i - 12]]);
    }
    if (i >= 6) {
      const SimJob& ahead = jobs_[run[i - 6]];
      __builtin_prefetch(ahead.fixed != nullptr ? static_cast<const void*>(ahead.fixed) : &ahead);
      __builtin_prefetch(&views_[slot_[run[i - 6]]], 1);
    }
    const int j = run[i];
    SimJob& s = jobs_[j];
    const double dt_s = now_s - s.last_update_s;
    bool done = false;
    if (dt_s > 0)
      done = s.fixed ? step_running_job(j, s, *s.fixed, s.last_update_s, dt_s)
                     : step_running_job(j, s, *s.progress, s.last_update_s, dt_s);
    if (!done) s.account.fill_service(views_[slot_[j]]);
  }
}

void SimRun::step_running(double t0_s, double dt_s) {
  for (size_t i = running_.size(); i-- > 0;) {
    const int j = running_[i];
    if (!step_job(j, t0_s, dt_s)) jobs_[j].account.fill_service(views_[slot_[j]]);
  }
}

void SimRun::move_slot(size_t from, size_t to) {
  active_[to] = active_[from];
  views_[to] = std::move(views_[from]);
  out_[to] = std::move(out_[from]);
  cur_size_[to] = cur_size_[from];
  slot_[active_[to]] = static_cast<int>(to);
}

void SimRun::compact_active() {
  if (first_dead_ == SIZE_MAX) return;
  const size_t end = active_.size();
  // The policy's previous list is the live slots as they are (arrivals since come after them).
  for (size_t i = first_dead_; i <= last_dead_; ++i)
    if (views_[i].job == nullptr) departed_.push_back(static_cast<int>(i - begin_));
  if (last_dead_ + 1 - begin_ < end - first_dead_) {
    // Fewer live jobs before the last finished one: close the gaps by moving those right.
    size_t k = last_dead_ + 1;
    for (size_t i = last_dead_ + 1; i-- > begin_;) {
      if (views_[i].job == nullptr) continue;
      if (--k != i) move_slot(i, k);
    }
    begin_ = k;
  } else {
    size_t k = first_dead_;
    for (size_t i = first_dead_; i < end; ++i) {
      if (views_[i].job == nullptr) continue;
      if (k != i) move_slot(i, k);
      ++k;
    }
    active_.resize(k);
    views_.resize(k);
    out_.resize(k);
    cur_size_.resize(k);
  }
  first_dead_ = SIZE_MAX;
  last_dead_ = 0;
  // Give the spare front slots back once they outnumber the live ones (amortized O(1)).
  const size_t live = active_.size() - begin_;
  if (begin_ >= 256 && begin_ > live) {
    for (size_t i = 0; i < live; ++i) move_slot(begin_ + i, i);
    active_.resize(live);
    views_.resize(live);
    out_.resize(live);
    cur_size_.resize(live);
    begin_ = 0;
  }
}

void SimRun::decide(double now_s) {
  compact_active();
  const size_t first = begin_, end = active_.size(), n = end - first;
  // Only running jobs' service changed since the last decision, and bring_running_to() or
  // step_running() has just refreshed their views.
  ClusterView view;
  view.cluster = &cluster_;
  view.now_s = now_s;
  view.round_s = config_.round_s;
  view.free_gpus = free_gpus_;
  view.jobs_unchanged = !jobs_dirty_;
  view.same_job_list = !list_dirty_;
  view.departed = departed_;
  view.num_arrived = arrived_since_;
  policy_changes_.listed = false;
  policy_changes_.indices.clear();
  view.changes = has_ps_jobs_ ? nullptr : &policy_changes_;
  policy_.schedule(view, std::span<const JobView>(views_.data() + first, n),
                   std::span<Placement>(out_.data() + first, n));
  jobs_dirty_ = false;  // apply() sets it again for every change made now
  list_dirty_ = false;
  departed_.clear();
  arrived_since_ = 0;

  changed_.clear();
  if (policy_changes_.listed)  // never set with PS jobs: view.changes is null then
    apply_listed(now_s, first);
  else
    apply_all(now_s, first, end);
  if (coloc_dirty_) {  // running jobs are at now_s (see above): neighbours' speeds may change
    refresh_interference();
    for (int j : rate_changed_)
      if (std::find(changed_.begin(), changed_.end(), j) == changed_.end()) changed_.push_back(j);
  }
  RoundSample sample;
  sample.time_s = now_s;
  sample.gpus_busy = busy_gpus_;
  sample.running_jobs = static_cast<int>(running_.size());
  sample.queued_jobs = static_cast<int>(n - running_.size());
  rounds_.push_back(sample);
  ++decisions_;
  // The policy's wake-up request, with the views as this decision left them.
  next_wakeup_s_ = policy_.next_wakeup_s(view, std::span<const JobView>(views_.data() + first, n));
}

void SimRun::apply_slot(double now_s, size_t i) {
  const Placement& next = out_[i];
  if (next.size() == cur_size_[i] && (next.empty() || next == views_[i].placement)) return;
  const int j = active_[i];
  apply(j, next, now_s);
  fill_view(j, views_[i]);
  cur_size_[i] = static_cast<uint32_t>(next.size());
  changed_.push_back(j);
}

void SimRun::apply_listed(double now_s, size_t first) {
  // Slot order, as the full pass: the same changes in the same order (completion events are
  // queued in this order).
  std::vector<int>& idx = policy_changes_.indices;
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const size_t n = active_.size() - first;
  if (!idx.empty() && (idx.front() < 0 || static_cast<size_t>(idx.back()) >= n)) {
    const std::string message = "policy '" + policy_name_ + "' listed a change of job index " +
                                std::to_string(idx.front() < 0 ? idx.front() : idx.back()) + " of " +
                                std::to_string(n) + " active jobs";
    if (policy_.user_code()) throw Error(message);
    throw std::logic_error(message);
  }
  if (config_.validate) {
    // The unlisted jobs keep their GPUs: start from the use of all current placements without the
    // listed jobs' ones, then add the listed jobs' new placements as the full pass does.
    for (size_t s = 0; s < used_per_server_.size(); ++s) used_per_server_[s] = server_gpus_[s] - free_gpus_[s];
    for (int k : idx)
      for (const Slice& slice : views_[first + k].placement) used_per_server_[slice.server] -= slice.gpus;
    for (int k : idx)
      if (!out_[first + k].empty()) validate_one(now_s, first + k);
  }
  for (int k : idx) {
    const size_t i = first + k;
    if (out_[i].empty() && cur_size_[i] == 0) continue;
    apply_slot(now_s, i);
  }
}

void SimRun::apply_all(double now_s, size_t first, size_t end) {
  // One pass: validate every new placement (capacity accumulates over the pass) and apply the
  // changes. A job that stays idle costs two loads.
  if (config_.validate) {
    std::fill(used_per_server_.begin(), used_per_server_.end(), 0);
    if (has_ps_jobs_) {
      std::fill(used_cpus_.begin(), used_cpus_.end(), 0.0);
      std::fill(used_mem_gb_.begin(), used_mem_gb_.end(), 0.0);
      std::fill(used_net_gbps_.begin(), used_net_gbps_.end(), 0.0);
    }
  }
  for (size_t i = first; i < end; ++i) {
    const Placement& next = out_[i];
    if (next.empty()) {
      if (cur_size_[i] == 0) continue;
    } else if (config_.validate) {
      validate_one(now_s, i);
    }
    apply_slot(now_s, i);
  }
}

void SimRun::take_gpus(const Placement& p, int sign) {
  const int num_servers = static_cast<int>(free_gpus_.size());
  for (const Slice& slice : p)
    if (slice.server >= 0 && slice.server < num_servers) free_gpus_[slice.server] += sign * slice.gpus;
}

namespace {
// Workers and PSs of a placement (parameter-server jobs).
std::pair<int, int> task_counts(const Placement& p) {
  int w = 0, ps = 0;
  for (const Slice& s : p) {
    w += s.workers;
    ps += s.ps;
  }
  return {w, ps};
}
}  // namespace

void SimRun::apply(int j, const Placement& next, double now_s) {
  SimJob& s = jobs_[j];
  const bool was_running = !s.placement.empty();
  const bool scale_cost =
      !policy_.charges_restarts() && (config_.ps_scale_cost_worker_s > 0 || config_.ps_scale_cost_ps_s > 0);
  const std::pair<int, int> before = scale_cost ? task_counts(s.placement) : std::pair<int, int>{0, 0};
  if (config_.record_placements) {
    if (was_running) close_placement(j, now_s);
    s.placed_since_s = now_s;
  }
  busy_gpus_ -= s.gpus;
  take_gpus(s.placement, +1);
  take_gpus(next, -1);
  jobs_dirty_ = true;
  s.placement = next;
  s.gpus = placement_gpus(s.placement);
  busy_gpus_ += s.gpus;
  set_running(j, !s.placement.empty());
  s.progress->on_placement(s.placement);
  if (interference_) coloc_dirty_ = true;
  s.last_update_s = now_s;
  ++s.version;
  if (!s.placement.empty()) {
    s.account.started();
    const bool first = s.first_start_s < 0;
    if (first) s.first_start_s = now_s;
    const bool free = !policy_.charges_restarts() || (first && !config_.charge_first_start);
    s.restart_left_s =
        (free ? 0.0 : config_.restart_delay_s) + (first ? config_.start_latency_s : config_.restart_latency_s);
    if (scale_cost) {
      const auto [w, p] = task_counts(s.placement);
      s.restart_left_s = std::abs(w - before.first) * config_.ps_scale_cost_worker_s +
                         std::abs(p - before.second) * config_.ps_scale_cost_ps_s;
    }
  } else {
    s.restart_left_s = 0;
    if (was_running) s.account.stopped(now_s);
  }
}

void SimRun::refresh_interference() {
  rate_changed_.clear();
  if (!interference_ || !coloc_dirty_) return;
  coloc_dirty_ = false;
  coloc_.reset(static_cast<int>(cluster_.servers.size()));
  for (int j : running_) {
    if (coloc_class_[j] < 0) continue;
    const bool sync = jobs_[j].job->ps->mode == PsTrainingMode::Sync;
    for (const Slice& slice : jobs_[j].placement)
      coloc_.add(slice.server, TaskGroup{j, coloc_class_[j], slice.workers, slice.ps, sync});
  }
  interference_->job_factors(coloc_, factor_, scratch_);
  for (int j : running_) {
    if (coloc_class_[j] < 0 || ps_progress_[j] == nullptr) continue;
    // A job (re)placed just now starts from its progress model's factor (reset to 1 when stopped).
    const double f = factor_[j];
    if (f == ps_progress_[j]->interference_factor() && f == applied_factor_[j]) continue;
    applied_factor_[j] = f;
    ps_progress_[j]->set_interference_factor(f);
    ++jobs_[j].version;
    rate_changed_.push_back(j);
  }
}

void SimRun::invalid(double now_s, const Job& job, const std::string& what) const {
  const std::string message = "policy '" + policy_name_ + "' made an invalid decision at t=" + format_time(now_s) +
                              " s: job '" + job.name + "' (id " + std::to_string(job.id) + "): " + what;
  if (policy_.user_code()) throw Error(message);  // the user's policy file: bad input, exit 2
  throw std::logic_error(message);                // a built-in policy: a bug of dmlkit
}

void SimRun::validate_one(double now_s, size_t i) {
  const int num_servers = static_cast<int>(cluster_.servers.size());
  const Job& job = *views_[i].job;
  ++mark_;
  for (const Slice& slice : out_[i]) {
    if (slice.server < 0 || slice.server >= num_servers)
      invalid(now_s, job,
              "server " + std::to_string(slice.server) + " does not exist (the cluster has " +
                  std::to_string(num_servers) + " servers)");
    const Server& server = cluster_.servers[slice.server];
    if (has_ps_jobs_ && job.kind == WorkKind::ParameterServer) {  // no Job load for GPU-only runs
      validate_ps_slice(now_s, job, slice);
    } else if (slice.gpus <= 0)
      invalid(now_s, job,
              "server " + std::to_string(slice.server) + " ('" + server.name + "') is given " +
                  std::to_string(slice.gpus) + " GPUs (must be > 0)");
    if (seen_mark_[slice.server] == mark_)
      invalid(now_s, job,
              "server " + std::to_string(slice.server) + " ('" + server.name + "') appears twice in its placement");
    seen_mark_[slice.server] = mark_;
    used_per_server_[slice.server] += slice.gpus;
    if (used_per_server_[slice.server] > server.gpus)
      invalid(now_s, job,
              "server " + std::to_string(slice.server) + " ('" + server.name + "') is over capacity (" +
                  std::to_string(used_per_server_[slice.server]) + " GPUs placed, " + std::to_string(server.gpus) +
                  " available)");
  }
}

void SimRun::validate_ps_slice(double now_s, const Job& job, const Slice& slice) {
  const Server& server = cluster_.servers[slice.server];
  const PsJobSpec& ps = *job.ps;
  auto where = [&] { return "server " + std::to_string(slice.server) + " ('" + server.name + "') "; };
  if (slice.workers < 0 || slice.ps < 0 || slice.workers + slice.ps == 0)
    invalid(now_s, job,
            where() + "is given " + std::to_string(slice.workers) + " workers and " + std::to_string(slice.ps) +
                " parameter servers");
  if (slice.gpus != slice.workers * ps.worker.gpus)
    invalid(now_s, job,
            where() + "is given " + std::to_string(slice.gpus) + " GPUs for " + std::to_string(slice.workers) +
                " workers of " + std::to_string(ps.worker.gpus) + " GPUs");
  const int s = slice.server;
  used_cpus_[s] += slice.workers * ps.worker.cpus + slice.ps * ps.ps.cpus;
  used_mem_gb_[s] += slice.workers * ps.worker.mem_gb + slice.ps * ps.ps.mem_gb;
  used_net_gbps_[s] += slice.workers * ps.worker.net_gbps + slice.ps * ps.ps.net_gbps;
  constexpr double kSlack = 1e-9;
  if (used_cpus_[s] > server.cpus + kSlack)
    invalid(now_s, job, where() + "is over its CPU capacity (" + format_time(used_cpus_[s]) + " cores placed)");
  if (used_mem_gb_[s] > server.mem_gb + kSlack)
    invalid(now_s, job, where() + "is over its memory capacity (" + format_time(used_mem_gb_[s]) + " GB placed)");
  if (used_net_gbps_[s] > server.net_gbps + kSlack)
    invalid(now_s, job, where() + "is over its bandwidth (" + format_time(used_net_gbps_[s]) + " Gbps placed)");
}

void SimRun::maybe_report_progress(double now_s) {
  if (config_.on_progress && decisions_ % kProgressEvery == 0)
    config_.on_progress(now_s, finished_count_, jobs_.size());
}

SimResult SimRun::take_result(bool timed_out) {
  SimResult r;
  r.policy = policy_name_;
  r.total_gpus = total_gpus_;
  r.dropped_oversized = workload_.dropped_oversized;
  r.timed_out = timed_out;
  if (config_.record_placements) {
    const double end_s = rounds_.empty() ? 0.0 : rounds_.back().time_s;
    for (size_t j = 0; j < jobs_.size(); ++j)
      if (!jobs_[j].finished && !jobs_[j].placement.empty()) close_placement(static_cast<int>(j), end_s);
    r.placements = std::move(placements_);
  }
  r.rounds = std::move(rounds_);
  r.jobs.reserve(jobs_.size());
  double first_arrival_s = 0, last_finish_s = 0;
  bool any_arrival = false, any_finish = false;
  for (const SimJob& s : jobs_) {
    const Job& job = *s.job;
    JobRecord rec;
    rec.id = job.id;
    rec.name = job.name;
    rec.application = job.application;
    rec.num_gpus = job.num_gpus;
    rec.arrival_s = job.arrival_s;
    rec.first_start_s = s.first_start_s;
    rec.finish_s = s.finished ? s.finish_s : -1;
    rec.executed_s = s.account.executed_s;
    rec.gpu_s = s.account.attained_gpu_s;
    rec.preemptions = s.account.preemptions;
    rec.restarts = s.account.restarts;
    r.jobs.push_back(std::move(rec));
    first_arrival_s = any_arrival ? std::min(first_arrival_s, job.arrival_s) : job.arrival_s;
    any_arrival = true;
    if (s.finished) {
      last_finish_s = any_finish ? std::max(last_finish_s, s.finish_s) : s.finish_s;
      any_finish = true;
    }
  }
  r.makespan_s = any_finish ? last_finish_s - first_arrival_s : 0.0;
  return r;
}

}  // namespace dmlkit::cluster::detail
