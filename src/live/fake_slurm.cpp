// The in-memory Slurm (see fake_slurm.h).
#include "live/fake_slurm.h"

#include <filesystem>
#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"

namespace dmlkit::live {

namespace {

std::string join(const std::vector<std::string>& v) { return fmt::to_string(fmt::join(v, ",")); }

}  // namespace

FakeSlurm::FakeSlurm(double start_wall_s) : now_s_(start_wall_s) {}

void FakeSlurm::add_node(const std::string& name, int gpus) {
  if (find_node(name)) throw Error("fake slurm: node '" + name + "' exists");
  nodes_.push_back({name, gpus, "", {}});
}

void FakeSlurm::add_nodes(int count, int gpus, const std::string& prefix) {
  for (int i = 1; i <= count; ++i) add_node(prefix + std::to_string(i), gpus);
}

FakeSlurm::Node* FakeSlurm::find_node(const std::string& name) {
  for (auto& n : nodes_)
    if (n.name == name) return &n;
  return nullptr;
}

void FakeSlurm::set_node_state(const std::string& node, const std::string& state, std::vector<std::string> flags) {
  Node* n = find_node(node);
  if (!n) throw Error("fake slurm: no node '" + node + "'");
  n->state = state;
  n->flags = std::move(flags);
}

void FakeSlurm::fail_node(const std::string& node) {
  set_node_state(node, "down*", {"NOT_RESPONDING"});
  for (auto& [id, j] : jobs_) {
    if (!j.record.active_running()) continue;
    bool on_it = false;
    for (const auto& a : j.record.allocation) on_it = on_it || a.node == node;
    if (on_it) requeue(j, false, "BeginTime");
  }
}

bool FakeSlurm::node_usable(const Node& n) const {
  SlurmNode view;
  view.state = n.state.empty() ? "idle" : n.state;
  view.flags = n.flags;
  return view.usable();
}

FakeLatencies fake_latencies(const cluster::Calibration& c, cluster::CalibrationStatistic statistic, double poll_s,
                             uint64_t seed) {
  using cluster::latency_draw;
  FakeLatencies f;
  f.poll = latency_draw(c.poll, statistic);
  f.place = latency_draw(c.place, statistic);
  f.release = latency_draw(c.release, statistic);
  f.hold = latency_draw(c.hold, statistic);
  f.requeue = latency_draw(c.requeue, statistic);
  f.submit = latency_draw(c.submit, statistic);
  // The measured start, completion and preemption latencies end at the poll that saw the change;
  // the fake's controller waits for its own next poll, so one poll cycle (the interval plus a
  // poll's mean duration) is taken off each draw [A].
  const double cycle = poll_s + c.poll.mean_s;
  f.start = latency_draw(c.start, statistic);
  f.completion = latency_draw(c.completion, statistic);
  f.settle = latency_draw(c.preemption, statistic);
  for (cluster::LatencyDraw* d : {&f.start, &f.completion, &f.settle}) d->offset_s = cycle;
  f.seed = seed;
  return f;
}

void FakeSlurm::set_latencies(FakeLatencies latencies) {
  lat_ = std::move(latencies);
  rng_ = Rng(lat_.seed);
}

void FakeSlurm::spend(const cluster::LatencyDraw& d) {
  if (d.zero()) return;
  const double s = d.draw(rng_);
  if (s > 0) advance(s);
}

int FakeSlurm::free_gpus(const Node& n) const {
  int used = 0;
  for (const auto& st : settling_)
    if (st.node == n.name && st.until_s > now_s_) used += st.gpus;
  for (const auto& [id, j] : jobs_)
    if (j.record.active_running())
      for (const auto& a : j.record.allocation)
        if (a.node == n.name) used += a.gpus;
  return n.gpus - used - n.leaked_gpus;
}

void FakeSlurm::set_run_time(int64_t id, double seconds) { find(id, "set_run_time").run_s = seconds; }

void FakeSlurm::set_failing_runs(int64_t id, int runs) { find(id, "set_failing_runs").failures_left = runs; }

void FakeSlurm::finish(int64_t id, const std::string& state) {
  Job& j = find(id, "finish");
  if (!j.record.finished()) end(j, state, now_s_);
}

const SlurmJob* FakeSlurm::job(int64_t id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second.record;
}

void FakeSlurm::fail_next(const std::string& command, SlurmError::Kind kind) { fail_next_[command] = kind; }

void FakeSlurm::enter(const std::string& command) {
  ++commands_run_;
  if (unreachable_)
    throw SlurmError(SlurmError::Kind::Unreachable, command + ": Unable to contact slurm controller (connect failure)");
  if (auth_failure_) throw SlurmError(SlurmError::Kind::Auth, command + ": Invalid authentication credential");
  auto it = fail_next_.find(command);
  if (it != fail_next_.end()) {
    const auto kind = it->second;
    fail_next_.erase(it);
    throw SlurmError(kind, command + ": injected failure");
  }
}

FakeSlurm::Job& FakeSlurm::find(int64_t id, const std::string& command) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw SlurmError(SlurmError::Kind::Command, command + ": Invalid job id specified");
  return it->second;
}

void FakeSlurm::end(Job& j, const std::string& state, double at_s) {
  j.record.state = state;
  j.record.reason = "None";
  j.record.allocation.clear();
  j.ended_s = at_s;
}

void FakeSlurm::requeue(Job& j, bool held, const std::string& reason) {
  j.done_at_s = -1;
  j.record.state = "PENDING";
  j.record.reason = reason;
  if (held) j.record.priority = 0;
  j.record.allocation.clear();
  ++j.record.restarts;
}

void FakeSlurm::set_refuses_starts(const std::string& node, bool on) {
  Node* n = find_node(node);
  if (n == nullptr) throw std::invalid_argument("FakeSlurm: no node " + node);
  n->refuses_starts = on;
}

void FakeSlurm::leak_gpus(const std::string& node, int gpus) {
  Node* n = find_node(node);
  if (n == nullptr) throw std::invalid_argument("FakeSlurm: no node " + node);
  n->leaked_gpus = gpus;
}

void FakeSlurm::reconfigure() {
  enter("reconfigure");
  ++reconfigures_;
  history_.push_back("reconfigure");
  for (auto& n : nodes_) n.leaked_gpus = 0;
}

void FakeSlurm::advance(double seconds) {
  if (seconds > 0) now_s_ += seconds;
  tick();
}

void FakeSlurm::tick() {
  // Completions first (in the order they are due), so their GPUs are free for the starts.
  std::vector<Job*> due;
  for (auto& [id, j] : jobs_)
    if (j.record.active_running() && j.run_s && j.started_s + *j.run_s <= now_s_) due.push_back(&j);
  std::stable_sort(due.begin(), due.end(),
                   [](const Job* a, const Job* b) { return a->started_s + *a->run_s < b->started_s + *b->run_s; });
  // Jobs set to fail without a run time exit non-zero at the first tick after they started.
  for (auto& [id, j] : jobs_)
    if (j.record.active_running() && !j.run_s && j.failures_left > 0 && j.started_s < now_s_) {
      --j.failures_left;
      end(j, "FAILED", now_s_);
    }
  // Replay jobs whose "done" file exists exit 0 now (the replay's batch script waits for it).
  if (done_file_jobs_)
    for (auto& [id, j] : jobs_)
      if (j.record.active_running() && !j.done_file.empty()) {
        if (j.done_at_s < 0) {
          if (!std::filesystem::exists(j.done_file)) continue;
          j.done_at_s = now_s_ + (lat_.completion.zero() ? 0.0 : lat_.completion.draw(rng_));
        }
        if (now_s_ >= j.done_at_s) end(j, "COMPLETED", now_s_);
      }
  for (Job* j : due) {
    const bool fails = j->failures_left > 0;  // its script exits non-zero this time
    if (fails) --j->failures_left;
    end(*j, fails ? "FAILED" : "COMPLETED", j->started_s + *j->run_s);
  }
  // Starts, in job id order (Slurm's priority order among equal priorities).
  for (auto& [id, j] : jobs_) {
    SlurmJob& r = j.record;
    if (!r.pending() || r.held()) continue;
    if (now_s_ < j.released_s + start_delay_s_) continue;  // the injected start latency
    if (now_s_ < j.start_after_s) continue;                // the drawn one (set_latencies)
    std::vector<Node*> chosen;
    if (!j.required.empty()) {
      for (const auto& name : j.required) chosen.push_back(find_node(name));
    } else {
      for (auto& n : nodes_)
        if (static_cast<int>(chosen.size()) < r.node_count && node_usable(n) && free_gpus(n) >= r.gpus_per_node)
          chosen.push_back(&n);
    }
    bool fits = static_cast<int>(chosen.size()) == r.node_count;
    for (Node* n : chosen)
      fits = fits && n && node_usable(*n) && !n->refuses_starts && free_gpus(*n) >= r.gpus_per_node;
    if (!fits) {
      r.reason = "Resources";
      continue;
    }
    r.state = "RUNNING";
    r.reason = "None";
    for (Node* n : chosen) r.allocation.push_back({n->name, r.gpus_per_node});
    j.started_s = now_s_;
  }
  std::erase_if(settling_, [&](const Settling& st) { return st.until_s <= now_s_; });
  // Purge jobs finished long ago.
  for (auto it = jobs_.begin(); it != jobs_.end();)
    it = it->second.record.finished() && now_s_ - it->second.ended_s >= min_job_age_s ? jobs_.erase(it) : std::next(it);
}

std::vector<SlurmJob> FakeSlurm::jobs() {
  enter("jobs");
  std::vector<SlurmJob> out;
  for (const auto& [id, j] : jobs_) out.push_back(j.record);
  return out;
}

SlurmSnapshot FakeSlurm::snapshot() {
  const double half = lat_.poll.zero() ? 0.0 : lat_.poll.draw(rng_) / 2;
  if (half > 0) advance(half);
  SlurmSnapshot s;
  s.nodes = nodes();
  s.jobs = jobs();
  if (half > 0) advance(half);
  return s;
}

std::vector<SlurmNode> FakeSlurm::nodes() {
  enter("nodes");
  std::vector<SlurmNode> out;
  for (const auto& n : nodes_) {
    SlurmNode s;
    s.name = n.name;
    s.gpus = n.gpus;
    s.gpus_used = n.gpus - free_gpus(n);
    s.flags = n.flags;
    s.partitions = {"main"};
    s.state = !n.state.empty() ? n.state : s.gpus_used == 0 ? "idle" : s.gpus_used < n.gpus ? "mixed" : "allocated";
    out.push_back(std::move(s));
  }
  return out;
}

void FakeSlurm::check_operator_rights() {
  enter("check_operator_rights");
  if (!operator_) throw Error("live mode needs Slurm operator rights (fake slurm: set_operator(false))");
}

void FakeSlurm::place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) {
  enter("place");
  Job& j = find(id, "place");
  if (!j.record.pending())
    throw SlurmError(SlurmError::Kind::Command, "place: Invalid node name specified for job " + std::to_string(id));
  if (nodes.empty() || gpus_per_node < 1) throw SlurmError(SlurmError::Kind::Command, "place: empty placement");
  if (cpus_per_node < 1) throw SlurmError(SlurmError::Kind::Command, "place: NumCPUs must be positive");
  for (const auto& n : nodes)
    if (!find_node(n)) throw SlurmError(SlurmError::Kind::Command, "place: Invalid node name specified");
  j.required = nodes;
  j.record.required_nodes = join(nodes);
  j.record.node_count = static_cast<int>(nodes.size());
  j.record.gpus_per_node = gpus_per_node;
  j.record.cpus_per_node = cpus_per_node;
  history_.push_back("place " + std::to_string(id) + " " + join(nodes) + " gpu:" + std::to_string(gpus_per_node));
  spend(lat_.place);
}

void FakeSlurm::set_held(const char* command, int64_t id, bool held) {
  enter(command);
  Job& j = find(id, command);
  if (!j.record.pending())
    throw SlurmError(SlurmError::Kind::Command, std::string(command) + ": Job is no longer pending execution");
  j.record.priority = held ? 0 : 1;
  j.record.reason = held ? "JobHeldAdmin" : "None";
  if (!held) {
    j.released_s = now_s_;
    if (!lat_.start.zero()) j.start_after_s = now_s_ + lat_.start.draw(rng_);
  }
  history_.push_back(std::string(command) + " " + std::to_string(id));
  spend(held ? lat_.hold : lat_.release);
}

void FakeSlurm::release(int64_t id) { set_held("release", id, false); }

void FakeSlurm::hold(int64_t id) { set_held("hold", id, true); }

void FakeSlurm::requeue_hold(int64_t id) {
  enter("requeue_hold");
  Job& j = find(id, "requeue_hold");
  // Slurm requeues a running or a finished batch job (within MinJobAge); a pending one is refused.
  if (!j.record.active_running() && !j.record.finished())
    throw SlurmError(SlurmError::Kind::Command, "requeuehold: Job is pending execution");
  if (!lat_.settle.zero() && j.record.active_running()) {
    const double until = now_s_ + lat_.settle.draw(rng_);
    for (const auto& a : j.record.allocation) settling_.push_back({a.node, a.gpus, until});
  }
  requeue(j, true, "job_requeued_in_held_state");
  history_.push_back("requeue_hold " + std::to_string(id));
  spend(lat_.requeue);
}

void FakeSlurm::cancel(int64_t id) {
  enter("cancel");
  Job& j = find(id, "cancel");
  if (!j.record.finished()) end(j, "CANCELLED", now_s_);
  history_.push_back("cancel " + std::to_string(id));
}

int64_t FakeSlurm::submit(const JobRequest& q) {
  enter("submit");
  int max_gpus = 0;
  for (const auto& n : nodes_) max_gpus = std::max(max_gpus, n.gpus);
  if (q.nodes < 1 || q.nodes > static_cast<int>(nodes_.size()) || q.gpus_per_node > max_gpus)
    throw SlurmError(SlurmError::Kind::Command, "sbatch: Requested node configuration is not available");
  Job j;
  j.record.id = next_id_++;
  j.record.name = q.name.empty() ? "job" : q.name;
  j.record.state = "PENDING";
  j.record.reason = "JobHeldUser";
  j.record.comment = q.comment;
  j.record.partition = q.partition.empty() ? "main" : q.partition;
  j.record.account = q.account;
  j.record.user = "root";
  j.record.priority = 0;
  j.record.submit_time = static_cast<int64_t>(now_s_);
  j.record.node_count = q.nodes;
  j.record.gpus_per_node = q.gpus_per_node;
  if (!q.script_args.empty()) j.done_file = q.script_args.front();
  if (auto f = failing_names_.find(j.record.name); f != failing_names_.end()) j.failures_left = f->second;
  const int64_t id = j.record.id;
  jobs_.emplace(id, std::move(j));
  history_.push_back("submit " + std::to_string(id));
  spend(lat_.submit);
  return id;
}

}  // namespace dmlkit::live
