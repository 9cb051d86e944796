// The placement-only base (see placement_policy.h).
#include "cluster/policies/placement/placement_policy.h"

#include <algorithm>

#include "core/error.h"

namespace dmlkit::cluster {

void PlacementState::reset(const ClusterSpec& cluster, std::span<const JobView> jobs) {
  if (cluster_ != &cluster || !pool_) {
    cluster_ = &cluster;
    pool_ = std::make_unique<PsPool>(cluster);
  }
  jobs_ = jobs;
  ++decision_;
  servers_ = static_cast<size_t>(cluster.num_servers());
  counts_.assign(jobs.size() * servers_, Counts{});
  placed_.assign(jobs.size(), Counts{});
  server_tasks_.assign(servers_, 0);
  for (const JobView& v : jobs)
    if (v.job == nullptr || v.job->kind != WorkKind::ParameterServer || !v.job->ps)
      throw Error(v.job ? v.job->source_file : "", v.job ? v.job->source_line : 0, "kind",
                  "placement policies schedule parameter-server jobs only");
  pool_->reset_to_running(jobs, scratch_ps_, scratch_workers_);
  for (size_t i = 0; i < jobs.size(); ++i)
    for (const Slice& s : jobs[i].placement) {
      if (s.server < 0 || static_cast<size_t>(s.server) >= servers_) continue;
      Counts& c = counts_[index(static_cast<int>(i), s.server)];
      c.workers += s.workers;
      c.ps += s.ps;
      placed_[i].workers += s.workers;
      placed_[i].ps += s.ps;
      server_tasks_[static_cast<size_t>(s.server)] += s.workers + s.ps;
    }
}

bool PlacementState::add_task(int i, TaskRole r, int server) {
  if (server < 0 || static_cast<size_t>(server) >= servers_ || running(i)) return false;
  if ((r == TaskRole::Worker ? workers_left(i) : ps_left(i)) <= 0) return false;
  const TaskDemand& d = demand(i, r);
  if (!pool_->fits(server, d)) return false;
  pool_->add(server, d, 1);
  Counts& c = counts_[index(i, server)];
  Counts& p = placed_[static_cast<size_t>(i)];
  (r == TaskRole::Worker ? c.workers : c.ps) += 1;
  (r == TaskRole::Worker ? p.workers : p.ps) += 1;
  server_tasks_[static_cast<size_t>(server)] += 1;
  return true;
}

void PlacementState::remove_job(int i) {
  if (running(i)) return;
  const PsJobSpec& job = spec(i);
  for (size_t m = 0; m < servers_; ++m) {
    Counts& c = counts_[index(i, static_cast<int>(m))];
    if (c.workers == 0 && c.ps == 0) continue;
    pool_->add(static_cast<int>(m), job.worker, -c.workers);
    pool_->add(static_cast<int>(m), job.ps, -c.ps);
    server_tasks_[m] -= c.workers + c.ps;
    c = Counts{};
  }
  placed_[static_cast<size_t>(i)] = Counts{};
}

void PlacementState::placement_of(int i, Placement& out) const {
  out.clear();
  const PsJobSpec& job = spec(i);
  for (size_t m = 0; m < servers_; ++m) {
    const Counts& c = counts_[index(i, static_cast<int>(m))];
    if (c.workers > 0 || c.ps > 0) add_tasks(out, job, static_cast<int>(m), c.workers, c.ps);
  }
}

void PlacementPolicy::schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
  waiting_.clear();
  for (size_t i = 0; i < jobs.size(); ++i)
    if (!jobs[i].running()) waiting_.push_back(static_cast<int>(i));
  if (waiting_.empty()) return;  // never moves a running job: out already holds every placement
  state_.reset(*view.cluster, jobs);
  place_batch(state_, waiting_);
  for (int i : waiting_) {
    if (state_.complete(i)) {
      state_.placement_of(i, out[static_cast<size_t>(i)]);
    } else {
      state_.remove_job(i);
      out[static_cast<size_t>(i)].clear();
    }
  }
}

void PlacementPolicy::place_batch(PlacementState& state, std::span<const int> waiting) {
  for (int i : waiting) {
    place_job(state, i);
    if (!state.complete(i)) state.remove_job(i);
  }
}

void GreedyTaskPlacement::place_job(PlacementState& state, int i) {
  const PsJobSpec& job = state.spec(i);
  while (!state.complete(i)) {
    const bool ps = state.workers_left(i) <= 0 ||
                    (state.ps_left(i) > 0 && next_task_is_ps(job, state.placed_ps(i), state.placed_workers(i)));
    const TaskRole role = ps ? TaskRole::Ps : TaskRole::Worker;
    int best = -1;
    Score best_score;
    for (int m = 0; m < state.num_servers(); ++m) {
      if (!state.fits(i, role, m) || !eligible(state, i, m)) continue;
      const Score sc = score(state, i, role, m);
      if (best < 0 || sc < best_score) {
        best = m;
        best_score = sc;
      }
    }
    if (best < 0 || !state.add_task(i, role, best)) return;  // waits; the caller takes it back
  }
}

double server_load(const PlacementState& state, int server) { return state.pool().load(server); }

double server_remaining(const PlacementState& state, int server) {
  const PsPool& p = state.pool();
  double r = 0;
  for (int k = 0; k < kResources; ++k)
    if (p.cap(server, k) > 0) r += p.free(server, k) / p.cap(server, k);
  return r;
}

namespace {
template <typename Key>
int best_server(const PlacementState& state, int i, TaskRole role, Key key) {
  int best = -1;
  double best_key = 0;
  for (int m = 0; m < state.num_servers(); ++m) {
    if (!state.fits(i, role, m)) continue;
    const double k = key(m);
    if (best < 0 || k < best_key) {
      best = m;
      best_key = k;
    }
  }
  return best;
}
}  // namespace

int least_loaded_server(const PlacementState& state, int i, TaskRole role) {
  return best_server(state, i, role, [&](int m) { return server_load(state, m); });
}

int tightest_server(const PlacementState& state, int i, TaskRole role) {
  return best_server(state, i, role, [&](int m) { return server_remaining(state, m); });
}

}  // namespace dmlkit::cluster
