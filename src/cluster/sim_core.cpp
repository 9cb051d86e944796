// Shared simulator bookkeeping: job state, running a job for a stretch of time, one policy
// decision (views, validation, application) and the final SimResult. See sim_core.h.
#include "cluster/sim_core.h"

#include "cluster/data_dir.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <sstream>
#include <stdexcept>

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

SimRun::SimRun(const ClusterSpec& cluster, const Workload& workload, const std::string& policy_name,
               Policy& policy, const SimConfig& config)
    : cluster_(cluster), workload_(workload), policy_name_(policy_name), policy_(policy), config_(config) {
  if (!(config_.round_s > 0) || !std::isfinite(config_.round_s))
    throw Error("simulator: the scheduling round must be a positive number of seconds (got " +
                format_time(config_.round_s) + ")");
  if (!(config_.restart_delay_s >= 0) || !std::isfinite(config_.restart_delay_s))
    throw Error("simulator: the restart delay must be a non-negative number of seconds (got " +
                format_time(config_.restart_delay_s) + ")");
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

  const size_t n = workload_.jobs.size();
  jobs_.resize(n);
  for (size_t j = 0; j < n; ++j) {
    const Job& job = workload_.jobs[j];
    if (!std::isfinite(job.arrival_s))
      throw Error(job.source_file, job.source_line, "time", "arrival time is not a finite number");
    jobs_[j].job = &job;
    jobs_[j].progress = make_job_progress(job, popts);
    jobs_[j].last_stopped_s = job.arrival_s;
    jobs_[j].queued_since_s = job.arrival_s;
    jobs_[j].last_update_s = job.arrival_s;
  }
  arrival_order_.resize(n);
  std::iota(arrival_order_.begin(), arrival_order_.end(), 0);
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(), [&](int a, int b) {
    return workload_.jobs[a].arrival_s < workload_.jobs[b].arrival_s;
  });
  used_per_server_.assign(cluster_.servers.size(), 0);
  seen_mark_.assign(cluster_.servers.size(), 0);
}

void SimRun::arrive(int j) {
  jobs_[j].arrived = true;
  ++arrived_count_;
  active_.push_back(j);
}

void SimRun::mark_finished(int j, double t_s) {
  SimJob& s = jobs_[j];
  s.finished = true;
  s.finish_s = t_s;
  s.placement.clear();
  s.gpus = 0;
  s.restart_left_s = 0;
  ++finished_count_;
}

bool SimRun::step_job(int j, double t0_s, double dt_s) {
  SimJob& s = jobs_[j];
  if (s.finished || s.placement.empty() || !(dt_s > 0)) return false;
  s.last_update_s = t0_s + dt_s;
  const double delay_s = std::min(s.restart_left_s, dt_s);
  s.restart_left_s -= delay_s;
  double used_s = 0;
  if (dt_s - delay_s > 0 && !s.progress->finished()) used_s = s.progress->advance(dt_s - delay_s);
  const bool done = s.progress->finished() && s.restart_left_s <= 0;
  const double held_s = done ? delay_s + used_s : dt_s;
  s.executed_s += held_s;
  s.gpu_s += held_s * s.gpus;
  if (done) mark_finished(j, t0_s + held_s);
  return done;
}

void SimRun::compact_active() {
  active_.erase(std::remove_if(active_.begin(), active_.end(), [&](int j) { return jobs_[j].finished; }),
                active_.end());
}

void SimRun::decide(double now_s) {
  compact_active();
  const size_t n = active_.size();
  if (views_.size() < n) {
    views_.resize(n);
    out_.resize(n);
  }
  for (size_t i = 0; i < n; ++i) {
    const SimJob& s = jobs_[active_[i]];
    JobView& v = views_[i];
    v.job = s.job;
    v.placement = s.placement;
    v.attained_gpu_s = s.gpu_s;
    v.executed_s = s.executed_s;
    v.last_stopped_s = s.last_stopped_s;
    v.queued_since_s = s.queued_since_s;
    v.preemptions = s.preemptions;
    v.restarts = s.restarts;
    v.oracle = s.progress.get();
    out_[i] = s.placement;
  }
  ClusterView view;
  view.cluster = &cluster_;
  view.now_s = now_s;
  view.round_s = config_.round_s;
  policy_.schedule(view, std::span<const JobView>(views_.data(), n), std::span<Placement>(out_.data(), n));
  if (config_.validate) validate(now_s, n);

  changed_.clear();
  RoundSample sample;
  sample.time_s = now_s;
  for (size_t i = 0; i < n; ++i) {
    const int j = active_[i];
    if (out_[i] != jobs_[j].placement) {
      apply(j, out_[i], now_s);
      changed_.push_back(j);
    }
    if (jobs_[j].gpus > 0) {
      sample.gpus_busy += jobs_[j].gpus;
      ++sample.running_jobs;
    } else {
      ++sample.queued_jobs;
    }
  }
  rounds_.push_back(sample);
  ++decisions_;
}

void SimRun::apply(int j, const Placement& next, double now_s) {
  SimJob& s = jobs_[j];
  const bool was_running = !s.placement.empty();
  s.placement = next;
  s.gpus = placement_gpus(s.placement);
  s.progress->on_placement(s.placement);
  s.last_update_s = now_s;
  ++s.version;
  if (!s.placement.empty()) {
    ++s.restarts;
    const bool first = s.first_start_s < 0;
    if (first) s.first_start_s = now_s;
    s.restart_left_s = (first && !config_.charge_first_start) ? 0.0 : config_.restart_delay_s;
  } else {
    if (was_running) ++s.preemptions;
    s.restart_left_s = 0;
    s.last_stopped_s = now_s;
    s.queued_since_s = now_s;
  }
}

void SimRun::invalid(double now_s, const Job& job, const std::string& what) const {
  throw std::logic_error("policy '" + policy_name_ + "' made an invalid decision at t=" + format_time(now_s) +
                         " s: job '" + job.name + "' (id " + std::to_string(job.id) + "): " + what);
}

void SimRun::validate(double now_s, size_t n) const {
  std::fill(used_per_server_.begin(), used_per_server_.end(), 0);
  const int num_servers = static_cast<int>(cluster_.servers.size());
  for (size_t i = 0; i < n; ++i) {
    const Job& job = *views_[i].job;
    ++mark_;
    for (const Slice& slice : out_[i]) {
      if (slice.server < 0 || slice.server >= num_servers)
        invalid(now_s, job, "server " + std::to_string(slice.server) + " does not exist (the cluster has " +
                                std::to_string(num_servers) + " servers)");
      const Server& server = cluster_.servers[slice.server];
      if (slice.gpus <= 0)
        invalid(now_s, job, "server " + std::to_string(slice.server) + " ('" + server.name + "') is given " +
                                std::to_string(slice.gpus) + " GPUs (must be > 0)");
      if (seen_mark_[slice.server] == mark_)
        invalid(now_s, job, "server " + std::to_string(slice.server) + " ('" + server.name +
                                "') appears twice in its placement");
      seen_mark_[slice.server] = mark_;
      used_per_server_[slice.server] += slice.gpus;
      if (used_per_server_[slice.server] > server.gpus)
        invalid(now_s, job, "server " + std::to_string(slice.server) + " ('" + server.name + "') is over capacity (" +
                                std::to_string(used_per_server_[slice.server]) + " GPUs placed, " +
                                std::to_string(server.gpus) + " available)");
    }
  }
}

void SimRun::maybe_report_progress(double now_s) {
  if (config_.on_progress && decisions_ % kProgressEvery == 0)
    config_.on_progress(now_s, finished_count_, jobs_.size());
}

SimResult SimRun::result(bool timed_out) const {
  SimResult r;
  r.policy = policy_name_;
  r.total_gpus = total_gpus_;
  r.dropped_oversized = workload_.dropped_oversized;
  r.timed_out = timed_out;
  r.rounds = rounds_;
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
    rec.executed_s = s.executed_s;
    rec.gpu_s = s.gpu_s;
    rec.preemptions = s.preemptions;
    rec.restarts = s.restarts;
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
