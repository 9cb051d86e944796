// The live controller (see controller.h): accounting from polls, policy rounds, decision
// application through the cluster backend, the atomic state file, retries while slurmctld is
// unreachable.
#include "live/controller.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cluster/speed/ps_assignment.h"
#include "cluster/speed/ps_speed.h"
#include "cluster/workload/ps_job_of_type.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "live/job_meta.h"

namespace dmlkit::live {

namespace cl = dmlkit::cluster;
using nlohmann::json;

namespace {

Alloc sorted(Alloc a) {
  std::sort(a.begin(), a.end());
  return a;
}

int total_gpus(const Alloc& a) {
  int g = 0;
  for (const auto& [n, gpus] : a) g += gpus;
  return g;
}

// Slurm settles a requeue within the next whole second (see Tracked::requeued_nodes).
double requeue_ready_after(double wall_s) { return std::floor(wall_s + 1.0) + 1.05; }

}  // namespace

Controller::Controller(ClusterBackend& backend, cl::Policy& policy, ControllerOptions options)
    : backend_(backend), policy_(policy), options_(std::move(options)) {
  if (!(options_.time_scale > 0)) throw Error("--time-scale: must be positive");
  if (!(options_.round_s > 0)) throw Error("--round: must be positive");
  t0_wall_s_ = backend_.now_s();
  last_observe_wall_s_ = t0_wall_s_;
}

Controller::~Controller() = default;

void Controller::log_line(const std::string& line) const {
  if (options_.log) *options_.log << line << std::endl;
}

const cl::JobAccount* Controller::account(int64_t slurm_id) const {
  auto it = jobs_.find(slurm_id);
  return it == jobs_.end() ? nullptr : &it->second.account;
}

void Controller::start(const std::function<bool()>& give_up) {
  connect(give_up);
  // Operator rights: the controller updates other users' jobs.
  backend_.check_operator_rights();
  load_state();
  log_line("controller: policy " + options_.policy_name + ", " + std::to_string(snap_.nodes.size()) + " nodes, " +
           std::to_string(jobs_.size()) + " jobs restored from the state file; manages " + options_.scope.describe() +
           (options_.dry_run ? "; dry run: nothing is applied" : ""));
}

// Slurm must answer and accept our credentials. Unreachable: wait and retry; refused: stop.
void Controller::connect(const std::function<bool()>& give_up) {
  double wait_s = 0.5;
  for (;;) {
    try {
      snap_ = backend_.snapshot();
      keep_scope_nodes(snap_);
      return;
    } catch (const SlurmError& e) {
      if (e.kind() == SlurmError::Kind::Auth)
        throw Error("cannot authenticate to Slurm (" + std::string(e.what()) +
                    "); refusing to start: run as root or Slurm's SlurmUser with a working munge");
      if (e.kind() == SlurmError::Kind::Command) throw Error(std::string("Slurm: ") + e.what());
      log_line(std::string("slurmctld unreachable (") + e.what() + "); retrying in " +
               std::to_string(wait_s).substr(0, 3) + " s");
      if (give_up && give_up()) throw Error(std::string("slurmctld unreachable: ") + e.what());
      backend_.sleep_s(wait_s);
      wait_s = std::min(options_.retry_max_s, wait_s * 2);
    }
  }
}

// --- state file --------------------------------------------------------------------------------

void Controller::load_state() {
  if (options_.state_path.empty() || !std::filesystem::exists(options_.state_path)) return;
  const std::string text = read_file(options_.state_path);
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("schema_version", 0) != 1)
    throw Error(options_.state_path, 0, "", "not a dmlkit live state file (schema_version 1)");
  try {
    if (doc.value("policy", std::string()) != options_.policy_name)
      throw Error(options_.state_path, 0, "policy",
                  "state was written by policy '" + doc.value("policy", std::string()) + "', not '" +
                      options_.policy_name + "' (remove the file to start afresh)");
    t0_wall_s_ = doc.at("t0_wall_s").get<double>();
    last_observe_wall_s_ = doc.at("last_observe_wall_s").get<double>();
    last_decision_wall_s_ = doc.value("last_decision_wall_s", 0.0);
    next_dense_id_ = doc.at("next_dense_id").get<int>();
    for (const auto& id : doc.at("finished")) finished_.insert(id.get<int64_t>());
    if (doc.contains("failed"))
      for (const auto& f : doc.at("failed"))
        failed_jobs_.push_back({f.at("slurm_id").get<int64_t>(), f.at("name").get<std::string>(),
                                f.at("state").get<std::string>(), f.at("retries").get<int>(),
                                f.at("wall_s").get<double>()});
    for (const auto& r : doc.at("jobs")) {
      Tracked t;
      t.slurm_id = r.at("slurm_id").get<int64_t>();
      t.job.id = r.at("dense_id").get<int>();
      t.job.name = r.at("name").get<std::string>();
      t.job.application = r.at("application").get<std::string>();
      t.job.batch_size = r.at("batch_size").get<int>();
      t.job.num_gpus = r.at("num_gpus").get<int>();
      t.job.duration_s = r.at("duration_s").get<double>();
      t.job.arrival_s = r.at("arrival_s").get<double>();
      t.job.kind = t.job.application.empty() ? cl::WorkKind::FixedDuration : cl::WorkKind::Profile;
      t.cap_gpus = r.at("cap_gpus").get<int>();
      t.released = r.at("released").get<bool>();
      t.released_wall_s = backend_.now_s();  // the start timeout counts from the restart
      for (const auto& d : r.at("decided")) t.decided.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int>());
      for (const auto& d : r.at("last_alloc"))
        t.last_alloc.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int>());
      if (r.contains("ps_meta")) make_ps_job(t, parse_job_meta(r.at("ps_meta").get<std::string>()));
      if (r.contains("tasks")) {  // every job since 2026-12-03, PS jobs before
        for (const auto& sl : r.at("tasks"))
          t.last_decision.push_back(
              {sl.at(0).get<int>(), sl.at(1).get<int>(), sl.at(2).get<int>(), sl.at(3).get<int>()});
        for (const auto& d : r.at("tasks_alloc"))
          t.decision_alloc.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int>());
      }
      t.account.attained_gpu_s = r.at("attained_gpu_s").get<double>();
      t.account.executed_s = r.at("executed_s").get<double>();
      t.account.last_stopped_s = r.at("last_stopped_s").get<double>();
      t.account.queued_since_s = r.at("queued_since_s").get<double>();
      t.account.preemptions = r.at("preemptions").get<int>();
      t.account.restarts = r.at("restarts").get<int>();
      t.was_running = r.at("was_running").get<bool>();
      t.failures = r.value("failures", 0);
      for (const auto& s : r.at("segments")) {
        Segment seg;
        for (const auto& sl : s.at("placement"))
          seg.placement.push_back({sl.at(0).get<int>(), sl.at(1).get<int>(), sl.size() > 2 ? sl.at(2).get<int>() : 0,
                                   sl.size() > 3 ? sl.at(3).get<int>() : 0});
        seg.seconds = s.at("seconds").get<double>();
        t.segments.push_back(std::move(seg));
      }
      make_oracle(t);
      jobs_.emplace(t.slurm_id, std::move(t));
    }
  } catch (const json::exception& e) {
    throw Error(options_.state_path, 0, "", std::string("malformed state file: ") + e.what());
  }
}

void Controller::save_state() const {
  if (options_.state_path.empty()) return;
  json doc;
  doc["schema_version"] = 1;
  doc["policy"] = options_.policy_name;
  doc["t0_wall_s"] = t0_wall_s_;
  doc["last_observe_wall_s"] = last_observe_wall_s_;
  doc["last_decision_wall_s"] = decisions_.empty() ? last_decision_wall_s_ : decisions_.back().wall_s;
  doc["stopped_wall_s"] = stopped_wall_s_;
  doc["next_dense_id"] = next_dense_id_;
  doc["finished"] = json::array();
  for (int64_t id : finished_) doc["finished"].push_back(id);
  doc["failed"] = json::array();
  for (const FailedJob& f : failed_jobs_)
    doc["failed"].push_back(
        {{"slurm_id", f.slurm_id}, {"name", f.name}, {"state", f.state}, {"retries", f.retries}, {"wall_s", f.wall_s}});
  doc["jobs"] = json::array();
  for (const auto& [id, t] : jobs_) {
    json r;
    r["slurm_id"] = id;
    r["dense_id"] = t.job.id;
    r["name"] = t.job.name;
    r["application"] = t.job.application;
    r["batch_size"] = t.job.batch_size;
    r["num_gpus"] = t.job.num_gpus;
    r["duration_s"] = t.job.duration_s;
    r["arrival_s"] = t.job.arrival_s;
    r["cap_gpus"] = t.cap_gpus;
    r["released"] = t.released;
    r["decided"] = json::array();
    for (const auto& [n, g] : t.decided) r["decided"].push_back({n, g});
    r["last_alloc"] = json::array();
    for (const auto& [n, g] : t.last_alloc) r["last_alloc"].push_back({n, g});
    if (!t.ps_meta.empty()) r["ps_meta"] = t.ps_meta;
    json tasks = json::array();
    for (const auto& sl : t.last_decision) tasks.push_back({sl.server, sl.gpus, sl.workers, sl.ps});
    r["tasks"] = tasks;
    r["tasks_alloc"] = json::array();
    for (const auto& [n, g] : t.decision_alloc) r["tasks_alloc"].push_back({n, g});
    r["attained_gpu_s"] = t.account.attained_gpu_s;
    r["executed_s"] = t.account.executed_s;
    r["last_stopped_s"] = t.account.last_stopped_s;
    r["queued_since_s"] = t.account.queued_since_s;
    r["preemptions"] = t.account.preemptions;
    r["restarts"] = t.account.restarts;
    r["was_running"] = t.was_running;
    r["failures"] = t.failures;
    r["segments"] = json::array();
    for (const auto& s : t.segments) {
      json p = json::array();
      for (const auto& sl : s.placement)
        p.push_back(sl.workers || sl.ps ? json{sl.server, sl.gpus, sl.workers, sl.ps} : json{sl.server, sl.gpus});
      r["segments"].push_back({{"placement", p}, {"seconds", s.seconds}});
    }
    doc["jobs"].push_back(std::move(r));
  }
  write_file_atomic(options_.state_path, doc.dump(1) + "\n");
}

// A dry run applies nothing, so the policy decides the same again every round: logged once.
bool Controller::repeated_dry_decision(const Decision& d) {
  if (!options_.dry_run) return false;
  const std::string key = d.action + "|" + d.placement;
  auto [it, fresh] = dry_logged_.emplace(d.slurm_id, key);
  if (!fresh && it->second == key) return true;
  it->second = key;
  return false;
}

void Controller::log_decision(const Decision& d) {
  if (repeated_dry_decision(d)) return;
  decisions_.push_back(d);
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  if (options_.dry_run) line << "[dry run] ";
  line << "t=" << d.model_time_s << "s " << d.action << " job " << d.slurm_id << " (" << d.job_name << ")";
  if (!d.placement.empty()) line << " on " << d.placement;
  if (!d.note.empty()) line << " [" << d.note << "]";
  log_line(line.str());
  if (!options_.decision_log_path.empty()) {
    json record{{"t_s", d.model_time_s}, {"wall_s", d.wall_s},       {"job", d.slurm_id}, {"name", d.job_name},
                {"action", d.action},    {"placement", d.placement}, {"note", d.note}};
    if (options_.dry_run) record["dry_run"] = true;
    std::ofstream(options_.decision_log_path, std::ios::app) << record.dump() << "\n";
  }
}

// --- accounting --------------------------------------------------------------------------------

void Controller::make_oracle(Tracked& t) const {
  cl::ProgressOptions po;
  po.data_dir = options_.data_dir;
  if (t.job.ps) {  // the simulator's defaults for PS jobs: the table speed model, the policy's PS assignment
    if (!ps_speed_) {
      ps_speed_ = cl::make_ps_speed_model("table", options_.data_dir);
      ps_balance_ =
          std::make_shared<cl::PsBalanceTable>(options_.data_dir, cl::parse_ps_assignment(policy_.ps_assignment()));
    }
    po.ps_speed = ps_speed_;
    po.ps_balance = ps_balance_;
  }
  t.progress.reset();
  try {
    t.progress = cl::make_job_progress(t.job, po);
  } catch (const Error& e) {
    // An application without a profile: fall back to a fixed-duration job (no crash on user input).
    log_line("job " + std::to_string(t.slurm_id) + ": " + e.what() + "; treating it as a fixed-duration job");
    t.job.kind = cl::WorkKind::FixedDuration;
    t.job.application.clear();
    if (!(t.job.duration_s > 0)) t.job.duration_s = options_.default_duration_s;
    t.progress = cl::make_job_progress(t.job, po);
  }
  for (const auto& s : t.segments) {
    t.progress->on_placement(s.placement);
    if (!s.placement.empty()) t.progress->advance(s.seconds);
  }
}

int Controller::server_of(const std::string& node) const {
  const auto it = server_index_.find(node);
  return it == server_index_.end() ? -1 : it->second;
}

cl::Placement Controller::to_placement(const Alloc& alloc) const {
  cl::Placement p;
  for (const auto& [n, g] : alloc) {
    const int s = server_of(n);
    if (s >= 0 && g > 0) p.push_back({s, g});
  }
  return p;
}

// A parameter-server job from its comment (live/job_meta.h): its type's demands and speed, the
// user's task counts. A comment naming an unknown type or missing counts leaves a GPU job (logged).
void Controller::make_ps_job(Tracked& t, const JobMeta& meta) {
  if (meta.workers < 1 || meta.ps < 1 || !(meta.epochs > 0)) {
    log_line("job " + std::to_string(t.slurm_id) + ": ps_type without workers, ps and epochs; treated as a GPU job");
    return;
  }
  try {
    cl::Job j = cl::ps_job_of_type(meta.ps_type, meta.epochs, meta.ps, meta.workers,
                                   meta.async ? cl::PsTrainingMode::Async : cl::PsTrainingMode::Sync, meta.seed);
    j.id = t.job.id;
    j.name = t.job.name;
    j.arrival_s = t.job.arrival_s;
    t.job = std::move(j);
    JobMeta ps_only;
    ps_only.ps_type = meta.ps_type;
    ps_only.workers = meta.workers;
    ps_only.ps = meta.ps;
    ps_only.epochs = meta.epochs;
    ps_only.async = meta.async;
    ps_only.seed = meta.seed;
    t.ps_meta = format_job_meta(ps_only);
  } catch (const Error& e) {
    log_line("job " + std::to_string(t.slurm_id) + ": " + e.what() + "; treated as a GPU job");
  }
}

cl::Placement Controller::job_placement(const Tracked& t, const Alloc& alloc) const {
  if (!t.job.ps) return to_placement(alloc);
  if (alloc.empty()) return {};
  if (!t.last_decision.empty() && sorted(alloc) == sorted(t.decision_alloc)) {
    // The policy's tasks as they are, if Slurm holds exactly their GPUs.
    Alloc task_gpus;
    for (const auto& sl : t.last_decision)
      if (sl.gpus > 0 && sl.server >= 0 && sl.server < static_cast<int>(snap_.nodes.size()))
        task_gpus.emplace_back(snap_.nodes[sl.server].name, sl.gpus);
    if (sorted(task_gpus) == sorted(alloc)) return t.last_decision;
  }
  // Placed otherwise (reshaped to Slurm's uniform GPUs per node, or found running after a
  // restart): what runs is shown, so the policy's view of free GPUs is Slurm's: the workers spread
  // over the allocation's GPUs, the PSs where the policy put them (or, if it never did, on the
  // first node) [A].
  const int per_worker = std::max(1, t.job.ps->worker.gpus);
  cl::Placement p;
  int workers_left = t.job.ps->user_workers;
  for (const auto& [n, g] : alloc) {
    const int s = server_of(n);
    if (s < 0) continue;
    const int w = std::min(workers_left, g / per_worker);
    workers_left -= w;
    p.push_back({s, w * t.job.ps->worker.gpus, w, 0});
  }
  int ps_left = t.job.ps->user_ps;
  for (const auto& sl : t.last_decision) {
    if (sl.ps <= 0 || ps_left <= 0) continue;
    const int k = std::min(ps_left, sl.ps);
    ps_left -= k;
    auto it = std::find_if(p.begin(), p.end(), [&](const cl::Slice& x) { return x.server == sl.server; });
    if (it != p.end())
      it->ps += k;
    else
      p.push_back({sl.server, 0, 0, k});
  }
  if (ps_left > 0 && !p.empty()) p.front().ps += ps_left;
  return p;
}

std::vector<ManagedJob> Controller::managed_jobs() const {
  std::vector<ManagedJob> out;
  for (const auto& [id, t] : jobs_) {
    if (!t.slurm) continue;
    ManagedJob m;
    m.slurm_id = id;
    m.name = t.job.name;
    m.gpus = t.cap_gpus;
    m.attained_gpu_s = t.account.attained_gpu_s;
    m.preemptions = t.account.preemptions;
    if (t.slurm->active_running()) {
      m.status = "running";
      m.placement = alloc_text(t.last_alloc);
    } else if (t.released) {
      m.status = "placed";
      m.placement = alloc_text(t.decided);
    } else {
      m.status = "waiting";
    }
    out.push_back(std::move(m));
  }
  return out;
}

cl::Placement Controller::placement_of(int64_t slurm_id, const Alloc& alloc) const {
  auto it = jobs_.find(slurm_id);
  return it == jobs_.end() ? cl::Placement{} : job_placement(it->second, alloc);
}

Controller::Tracked& Controller::track(const SlurmJob& j, double model_now, double wall_s) {
  auto it = jobs_.find(j.id);
  if (it != jobs_.end()) return it->second;
  Tracked t;
  t.slurm_id = j.id;
  std::string problem;
  const JobMeta meta = parse_job_meta(j.comment, &problem);
  if (!problem.empty()) log_line("job " + std::to_string(j.id) + ": comment ignored in part: " + problem);
  t.job.id = next_dense_id_++;
  t.job.name = meta.name.empty() ? j.name + "-" + std::to_string(j.id) : meta.name;
  const int requested = std::max(1, j.requested_gpus());
  t.cap_gpus = meta.gpus > 0 ? std::min(meta.gpus, requested) : requested;
  t.job.num_gpus = t.cap_gpus;
  t.job.application = meta.application;
  t.job.batch_size = meta.batch_size;
  t.job.duration_s = meta.duration_s > 0 ? meta.duration_s : options_.default_duration_s;
  t.job.kind = (!meta.application.empty() && meta.batch_size > 0) ? cl::WorkKind::Profile : cl::WorkKind::FixedDuration;
  if (t.job.kind == cl::WorkKind::FixedDuration) t.job.application.clear();
  if (!meta.ps_type.empty()) make_ps_job(t, meta);
  // Arrival: when first seen, or its submit time if it was submitted while we were away.
  double arrival = model_now;
  if (j.submit_time > 0 && static_cast<double>(j.submit_time) + 2 < last_observe_wall_s_)
    arrival = model_time(static_cast<double>(j.submit_time));
  t.job.arrival_s = arrival;
  t.account = cl::JobAccount::arrived_at(arrival);
  make_oracle(t);
  return jobs_.emplace(j.id, std::move(t)).first->second;
}

void Controller::keep_scope_nodes(SlurmSnapshot& snap) const {
  if (options_.scope.partitions.empty()) return;
  std::erase_if(snap.nodes, [this](const SlurmNode& n) { return !options_.scope.covers(n); });
}

bool Controller::observe(const SlurmSnapshot& snap, double wall_s) {
  snap_ = snap;
  keep_scope_nodes(snap_);
  server_index_.clear();
  for (size_t i = 0; i < snap_.nodes.size(); ++i) server_index_.emplace(snap_.nodes[i].name, static_cast<int>(i));
  const double now = model_time(wall_s);
  const double dt = std::max(0.0, (wall_s - last_observe_wall_s_) / options_.time_scale);
  Observed o;
  for (auto& [id, t] : jobs_) t.slurm = nullptr;
  for (const SlurmJob& j : snap_.jobs)
    if (options_.scope.manages(j)) observe_job(j, now, dt, wall_s, o);
  forget_departed(o);
  last_observe_wall_s_ = wall_s;
  if (o.changed) save_state();
  return o.event;
}

void Controller::observe_job(const SlurmJob& j, double now, double dt, double wall_s, Observed& o) {
  if (finished_.count(j.id)) {
    // A job back from the dead (requeued after a state that looked final) is managed again.
    if (!(j.pending() || j.active_running())) {
      o.seen.insert(j.id);
      return;
    }
    finished_.erase(j.id);
  }
  if (j.finished()) {
    auto it = jobs_.find(j.id);
    if (it != jobs_.end() && retry_failed(j, it->second, now, dt, wall_s)) {
      o.seen.insert(j.id);
      o.event = o.changed = true;
      return;
    }
    if (it != jobs_.end()) {
      finished_.insert(j.id);
      log_line("job " + std::to_string(j.id) + " (" + it->second.job.name + ") finished: " + j.state);
      jobs_.erase(it);
      o.event = o.changed = true;
    }
    o.seen.insert(j.id);
    return;
  }
  if (!(j.pending() || j.active_running())) {
    // In between (COMPLETING, REQUEUED, NODE_FAIL on the way back, SUSPENDED...): keep tracking
    // it, without showing it to the policy this round.
    if (jobs_.count(j.id)) o.seen.insert(j.id);
    return;
  }
  const bool is_new = !jobs_.count(j.id);
  Tracked& t = track(j, now, wall_s);
  o.seen.insert(j.id);
  t.slurm = &j;
  if (is_new) o.event = o.changed = true;
  const bool running = j.active_running();
  Alloc alloc;
  for (const auto& a : j.allocation) alloc.emplace_back(a.node, a.gpus);
  if (t.was_running) {
    credit_run(t, dt);
    o.changed = true;
  }
  if (running && (!t.was_running || sorted(alloc) != sorted(t.last_alloc))) {
    note_started(t, alloc);
    o.changed = true;
  }
  if (!running && t.was_running) {
    // Stopped: by our requeuehold, or by Slurm (node failure, an admin's requeue). Either way it
    // is no longer placed by us, so step 1 of the next round holds it until the policy decides.
    note_stopped(t, now, wall_s);
    o.changed = true;
  }
  t.was_running = running;
  if (t.restart_pending && j.pending() && j.held() && wall_s >= t.requeue_ready_wall_s) {
    t.restart_pending = false;
    o.event = true;
  }
}

bool Controller::retry_failed(const SlurmJob& j, Tracked& t, double now, double dt, double wall_s) {
  if (j.state != "FAILED" && j.state != "OUT_OF_MEMORY") return false;
  const bool retry = t.failures < options_.max_retries;
  if (retry) {
    try {
      backend_.requeue_hold(j.id);
    } catch (const SlurmError& e) {
      if (e.kind() != SlurmError::Kind::Command) throw;  // unreachable: the next poll tries again
      log_line("job " + std::to_string(j.id) + " (" + t.job.name + ") failed (" + j.state +
               "); requeue refused: " + e.what());
      return false;
    }
    // It ran until it failed; then it is stopped like a preempted job and waits for the policy.
    if (t.was_running) {
      credit_run(t, dt);
      note_stopped(t, now, wall_s);
    }
    t.released = false;
    t.decided.clear();
    ++t.failures;
    t.slurm = nullptr;  // not shown to the policy until a poll shows it pending again
    log_decision({now, wall_s, j.id, t.job.name, "retry", "",
                  "failed on its own (" + j.state + "); retry " + std::to_string(t.failures) + " of " +
                      std::to_string(options_.max_retries)});
    return true;
  }
  failed_jobs_.push_back({j.id, t.job.name, j.state, t.failures, wall_s});
  log_line("job " + std::to_string(j.id) + " (" + t.job.name + ") failed (" + j.state + ") after " +
           std::to_string(t.failures) + " retr" + (t.failures == 1 ? "y" : "ies") + " (--max-retries " +
           std::to_string(options_.max_retries) + "); reported as failed");
  return false;
}

// Jobs gone from squeue (purged after MinJobAge, or cancelled long ago).
void Controller::forget_departed(Observed& o) {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (!o.seen.count(it->first)) {
      finished_.insert(it->first);
      log_line("job " + std::to_string(it->first) + " (" + it->second.job.name + ") left the queue");
      it = jobs_.erase(it);
      o.event = o.changed = true;
    } else {
      ++it;
    }
  }
  for (auto it = finished_.begin(); it != finished_.end();)
    it = o.seen.count(*it) ? std::next(it) : finished_.erase(it);
}

// The interval since the last poll ran on the placement the job held then.
void Controller::credit_run(Tracked& t, double dt) {
  t.account.credit(dt, total_gpus(t.last_alloc));
  const cl::Placement p = job_placement(t, t.last_alloc);
  if (!t.segments.empty() && t.segments.back().placement == p)
    t.segments.back().seconds += dt;
  else
    t.segments.push_back({p, dt});
  if (t.progress) t.progress->advance(dt);
}

void Controller::note_started(Tracked& t, const Alloc& alloc) {
  if (t.account.restarts > 0) ++counters_.restarts;
  t.account.started();
  t.last_alloc = alloc;
  if (t.progress) t.progress->on_placement(job_placement(t, alloc));
}

// The job lost its GPUs at model time `now` (wall_s): by our requeuehold or by Slurm.
void Controller::note_stopped(Tracked& t, double now, double wall_s) {
  t.released = false;
  t.decided.clear();
  t.requeued_nodes.clear();
  for (const auto& [n, g] : t.last_alloc) t.requeued_nodes.push_back(n);
  t.requeue_ready_wall_s = requeue_ready_after(wall_s);
  t.account.stopped(now);
  ++counters_.preemptions;
  if (t.progress) t.progress->on_placement({});
  t.last_alloc.clear();
  t.was_running = false;
}

// --- decisions ---------------------------------------------------------------------------------

RoundStat Controller::round(double wall_s) {
  RoundStat stat;
  const auto t_begin = std::chrono::steady_clock::now();
  stat.model_time_s = model_time(wall_s);
  const double now = stat.model_time_s;

  check_gres_leaks(wall_s);
  const std::vector<int64_t> to_hold = unplaced_pending();
  take_back_unstarted(now, wall_s);  // after: the jobs it holds are not in to_hold
  RoundInput in = build_round_input();
  stat.active_jobs = static_cast<int>(in.views.size());
  std::vector<cl::Placement> out(in.views.size());
  for (size_t i = 0; i < in.views.size(); ++i) out[i] = in.views[i].placement;
  cl::ClusterView cv;
  cv.cluster = &in.cluster;
  cv.now_s = now;
  cv.round_s = options_.round_s;
  policy_.schedule(cv, in.views, out);
  const std::vector<PlannedAction> actions = plan_actions(in.cluster, in.plan, out, wall_s, options_.unexpressible);
  const auto t_decided = std::chrono::steady_clock::now();
  stat.decide_ms = std::chrono::duration<double, std::milli>(t_decided - t_begin).count();

  // Apply: holds first, then stops (free GPUs), then starts.
  const int64_t cmds_before = backend_.commands_run();
  hold_unplaced(to_hold, now, wall_s);
  for (const PlannedAction& a : actions) {
    Tracked& t = *in.order[a.job];
    if (a.kind == PlannedAction::Kind::Defer || a.kind == PlannedAction::Kind::Restart) t.restart_pending = true;
    if (!a.stop) continue;
    apply_stop(a, t, now, wall_s);
    ++stat.actions;
  }
  for (const PlannedAction& a : actions) {
    if (a.kind != PlannedAction::Kind::Start) continue;
    apply_start(a, *in.order[a.job], now, out[a.job]);
    ++stat.actions;
  }
  stat.slurm_commands = static_cast<int>(backend_.commands_run() - cmds_before);
  stat.apply_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_decided).count();
  rounds_.push_back(stat);
  return stat;
}

// Pending jobs the controller did not release (new, requeued by Slurm after a node failure, or
// released by someone else) go back on hold until the policy places them.
std::vector<int64_t> Controller::unplaced_pending() {
  std::vector<int64_t> ids;
  for (auto& [id, t] : jobs_) {
    if (!t.slurm || !t.slurm->pending()) continue;
    if (!t.slurm->held() && !t.released) ids.push_back(id);
    if (t.slurm->held()) t.released = false;
  }
  return ids;
}

void Controller::check_gres_leaks(double wall_s) {
  std::map<std::string, int> held;
  for (const SlurmJob& j : snap_.jobs)
    if (j.active_running())
      for (const auto& a : j.allocation) held[a.node] += a.gpus;
  std::string leaks;
  bool due = false;
  for (const SlurmNode& n : snap_.nodes) {
    const int extra = n.gpus_used - held[n.name];
    if (!n.usable() || extra <= 0) {
      leak_since_.erase(n.name);
      continue;
    }
    const auto it = leak_since_.emplace(n.name, wall_s).first;
    if (wall_s - it->second < options_.leak_grace_s) continue;
    due = true;
    leaks += (leaks.empty() ? "" : ", ") + n.name + " (" + std::to_string(n.gpus_used) + " GPUs used, jobs hold " +
             std::to_string(held[n.name]) + ")";
  }
  if (!due) return;
  if (!options_.repair_gres_leaks) {
    if (!leak_reported_) log_line("Slurm counts GPUs no job holds on " + leaks + "; repair: scontrol reconfigure");
    leak_reported_ = true;
    return;
  }
  try {
    backend_.reconfigure();
    log_line("Slurm counted GPUs no job holds on " + leaks + ": ran scontrol reconfigure");
  } catch (const SlurmError& e) {
    if (e.kind() == SlurmError::Kind::Unreachable) throw;
    log_line(std::string("scontrol reconfigure failed: ") + e.what());
  }
  leak_since_.clear();
}

void Controller::take_back_unstarted(double now, double wall_s) {
  const double timeout = options_.start_timeout_s;
  if (!(timeout > 0)) return;
  for (auto& [id, t] : jobs_) {
    if (!t.slurm || !t.released || !t.slurm->pending() || t.slurm->held()) continue;
    if (wall_s - t.released_wall_s <= timeout) continue;
    const std::string where = alloc_text(t.decided);
    try {
      backend_.hold(id);
    } catch (const SlurmError& e) {
      if (e.kind() != SlurmError::Kind::Command) throw;
      log_line(std::string("hold failed: ") + e.what());
      continue;
    }
    for (const auto& [node, gpus] : t.decided) shunned_until_[node] = wall_s + 2 * timeout;
    t.released = false;
    t.decided.clear();
    save_state();
    log_decision({now, backend_.now_s(), id, t.job.name, "hold", "",
                  "not started by Slurm within " + std::to_string(static_cast<int>(timeout)) + " s on " + where +
                      "; placing it elsewhere"});
  }
}

// Usable nodes' GPUs minus those held by jobs the policy does not see (not managed by us).
cl::ClusterSpec Controller::usable_cluster() const {
  cl::ClusterSpec spec;
  spec.name = "slurm";
  for (size_t i = 0; i < snap_.nodes.size(); ++i) {
    cl::Server s;
    s.id = static_cast<int>(i);
    s.name = snap_.nodes[i].name;
    s.gpus = snap_.nodes[i].usable() ? snap_.nodes[i].gpus : 0;
    // A shunned node (Slurm did not start a job there in time) keeps only what runs on it.
    const auto sh = shunned_until_.find(s.name);
    if (sh != shunned_until_.end() && sh->second > backend_.now_s())
      s.gpus = std::min(s.gpus, std::max(0, snap_.nodes[i].gpus_used));
    s.cpus = s.gpus * cl::kDefaultCpusPerGpu;
    s.mem_gb = s.gpus * cl::kDefaultMemGbPerGpu;
    s.net_gbps = cl::kDefaultNetGbps;
    spec.servers.push_back(s);
  }
  for (const SlurmJob& j : snap_.jobs) {
    const bool visible = jobs_.count(j.id) && (j.pending() || j.active_running());
    if (visible || j.pending() || j.finished()) continue;
    for (const auto& a : j.allocation) {
      const int s = server_of(a.node);
      if (s >= 0) spec.servers[s].gpus = std::max(0, spec.servers[s].gpus - a.gpus);
    }
  }
  return spec;
}

Controller::RoundInput Controller::build_round_input() {
  RoundInput in;
  in.cluster = usable_cluster();
  for (auto& [id, t] : jobs_)
    if (t.slurm) in.order.push_back(&t);
  std::sort(in.order.begin(), in.order.end(), [](const Tracked* a, const Tracked* b) {
    if (a->job.arrival_s != b->job.arrival_s) return a->job.arrival_s < b->job.arrival_s;
    return a->job.id < b->job.id;
  });
  // A job never asks the policy for more GPUs than the nodes that are up have (a node lost or
  // down shrinks the cluster; the request comes back when the node does). Other users' jobs do not
  // count: a job waits for them rather than run narrowed.
  int usable_gpus = 0;
  for (const SlurmNode& n : snap_.nodes) usable_gpus += n.usable() ? std::max(0, n.gpus) : 0;
  for (Tracked* t : in.order) t->job.num_gpus = usable_gpus > 0 ? std::min(t->cap_gpus, usable_gpus) : t->cap_gpus;
  for (const Tracked* t : in.order) {
    PlanJob p;
    p.cap_gpus = t->cap_gpus;
    p.running = t->slurm->active_running();
    p.released = t->released;
    if (p.running)
      p.current = t->last_alloc;
    else if (t->released)
      p.current = t->decided;
    p.requeued_nodes = t->requeued_nodes;
    p.requeue_ready_wall_s = t->requeue_ready_wall_s;
    cl::JobView v;
    v.job = &t->job;
    v.placement = job_placement(*t, p.current);
    if (t->job.ps && !p.current.empty())
      p.kept_decision = v.placement;
    else if (options_.unexpressible == Unexpressible::Wait && !p.current.empty() &&
             sorted(p.current) == sorted(t->decision_alloc))
      p.kept_decision = t->last_decision;
    // A job on a node that is no longer usable cannot keep it (Slurm will requeue it).
    const bool lost = std::any_of(v.placement.begin(), v.placement.end(),
                                  [&](const cl::Slice& sl) { return in.cluster.servers[sl.server].gpus == 0; });
    if (lost) v.placement.clear();
    t->account.fill(v);
    v.oracle = t->progress.get();
    in.views.push_back(v);
    in.plan.push_back(std::move(p));
  }
  return in;
}

void Controller::hold_unplaced(const std::vector<int64_t>& ids, double now, double wall_s) {
  for (int64_t id : ids) {
    try {
      backend_.hold(id);
      log_decision(
          {now, wall_s, id, jobs_.at(id).job.name, "hold", "", "pending without a placement from the controller"});
    } catch (const SlurmError& e) {
      if (e.kind() != SlurmError::Kind::Command) throw;
      log_line(std::string("hold failed: ") + e.what());
    }
  }
}

void Controller::apply_stop(const PlannedAction& a, Tracked& t, double now, double wall_s) {
  try {
    if (t.slurm->active_running()) {
      backend_.requeue_hold(t.slurm_id);
      // Account the stop here, so the next poll does not take our own requeue (before a move's
      // release) for a stop by Slurm and hold the job again.
      note_stopped(t, now, backend_.now_s());
    } else {
      backend_.hold(t.slurm_id);
      t.released = false;
      t.decided.clear();
    }
    save_state();
    if (a.kind != PlannedAction::Kind::Start)
      log_decision({now, wall_s, t.slurm_id, t.job.name, "preempt", "", a.note});
  } catch (const SlurmError& e) {
    if (e.kind() != SlurmError::Kind::Command) throw;
    log_line(std::string("preempt failed: ") + e.what());
  }
}

void Controller::apply_start(const PlannedAction& a, Tracked& t, double now, const cl::Placement& decided) {
  t.last_decision = decided;  // the decision this allocation stands for (see Tracked::last_decision)
  t.decision_alloc = a.start;
  std::vector<std::string> nodes;
  for (const auto& [n, g] : a.start) nodes.push_back(n);
  try {
    // Record the intent first: if we die between the calls, the next start sees a held job
    // (released=false wins over the file) or a released one it knows.
    t.decided = a.start;
    backend_.place(t.slurm_id, nodes, a.start[0].second, t.slurm != nullptr ? t.slurm->cpus_per_node : 1);
    t.released = true;
    t.released_wall_s = backend_.now_s();
    save_state();
    backend_.release(t.slurm_id);
    log_decision(
        {now, backend_.now_s(), t.slurm_id, t.job.name, a.stop ? "move" : "place", alloc_text(a.start), a.note});
  } catch (const SlurmError& e) {
    if (e.kind() != SlurmError::Kind::Command) throw;
    t.released = false;
    t.decided.clear();
    save_state();
    log_line(std::string("place failed: ") + e.what());
  }
}

void Controller::run(const std::function<bool()>& stop,
                     const std::function<void(const SlurmSnapshot&, double)>& on_poll) {
  double next_round_wall = 0;  // decide at once
  double retry_s = 0.5;
  bool unreachable = false;
  while (!stop()) {
    const double wall = backend_.now_s();
    try {
      SlurmSnapshot snap = backend_.snapshot();
      const double polled = backend_.now_s();
      if (unreachable) {
        log_line("slurmctld reachable again");
        unreachable = false;
        retry_s = 0.5;
      }
      if (on_poll) on_poll(snap, polled);
      const bool event = observe(snap, polled);
      if ((event && options_.replan_on_events) || polled >= next_round_wall) {
        round(polled);
        next_round_wall = polled + options_.round_s * options_.time_scale;
      }
      if (options_.on_cycle) options_.on_cycle(backend_.now_s());
    } catch (const SlurmError& e) {
      if (e.kind() == SlurmError::Kind::Command) {
        log_line(std::string("Slurm command failed: ") + e.what() + "; retrying");
      } else {
        log_line(std::string(e.kind() == SlurmError::Kind::Auth ? "Slurm refused us (" : "slurmctld unreachable (") +
                 e.what() + "); retrying in " + std::to_string(retry_s).substr(0, 3) + " s");
        unreachable = true;
      }
      if (options_.on_cycle) options_.on_cycle(backend_.now_s());
      backend_.sleep_s(retry_s);
      retry_s = std::min(options_.retry_max_s, retry_s * 2);
      continue;
    }
    const double spent = backend_.now_s() - wall;
    if (spent < options_.poll_s) backend_.sleep_s(options_.poll_s - spent);
  }
  stopped_wall_s_ = backend_.now_s();
  save_state();
  stopped_wall_s_ = 0;  // a later run() is running again
}

}  // namespace dmlkit::live
