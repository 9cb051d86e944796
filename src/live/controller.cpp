// The live controller (see controller.h): accounting from polls, policy rounds, decision
// application through scontrol, the atomic state file, retries while slurmctld is unreachable.
#include "live/controller.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/output_dir.h"
#include "live/job_meta.h"

namespace dmlkit::live {

namespace cl = dmlkit::cluster;
using nlohmann::json;
using Alloc = std::vector<std::pair<std::string, int>>;

namespace {

std::string alloc_text(const Alloc& a) {
  std::string s;
  for (const auto& [n, g] : a) s += (s.empty() ? "" : ",") + n + ":" + std::to_string(g);
  return s.empty() ? "-" : s;
}

Alloc sorted(Alloc a) {
  std::sort(a.begin(), a.end());
  return a;
}

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

}  // namespace

double Controller::wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Controller::Controller(const SlurmClient& slurm, cl::Policy& policy, ControllerOptions options)
    : slurm_(slurm), policy_(policy), options_(std::move(options)) {
  if (!(options_.time_scale > 0)) throw Error("--time-scale: must be positive");
  if (!(options_.round_s > 0)) throw Error("--round: must be positive");
  t0_wall_s_ = wall_now();
  last_observe_wall_s_ = t0_wall_s_;
}

Controller::~Controller() = default;

void Controller::log_line(const std::string& line) const {
  if (options_.log) *options_.log << line << std::endl;
}

void Controller::start(const std::function<bool()>& give_up) {
  // 1. Slurm must answer and accept our credentials. Unreachable: wait and retry; refused: stop.
  double wait_s = 0.5;
  for (;;) {
    try {
      snap_ = slurm_.snapshot();
      break;
    } catch (const SlurmError& e) {
      if (e.kind() == SlurmError::Kind::Auth)
        throw Error("cannot authenticate to Slurm (" + std::string(e.what()) +
                    "); refusing to start: run as root or Slurm's SlurmUser with a working munge");
      if (e.kind() == SlurmError::Kind::Command) throw Error(std::string("Slurm: ") + e.what());
      log_line(std::string("slurmctld unreachable (") + e.what() + "); retrying in " +
               std::to_string(wait_s).substr(0, 3) + " s");
      if (give_up && give_up()) throw Error(std::string("slurmctld unreachable: ") + e.what());
      sleep_s(wait_s);
      wait_s = std::min(options_.retry_max_s, wait_s * 2);
    }
  }
  // 2. Operator rights: without a Slurm database only root and SlurmUser may update other users'
  // jobs; with one, operators/administrators may as well (checked by Slurm on the first update).
  const std::string config = slurm_.show_config();
  std::istringstream in(config);
  std::string line, slurm_user, accounting;
  while (std::getline(in, line)) {
    auto value = [&](const std::string& key) -> std::string {
      if (line.compare(0, key.size(), key) != 0) return {};
      const size_t eq = line.find('=');
      if (eq == std::string::npos) return {};
      std::string v = line.substr(eq + 1);
      v.erase(0, v.find_first_not_of(' '));
      return v;
    };
    if (line.compare(0, 10, "SlurmUser ") == 0) slurm_user = value("SlurmUser");
    if (line.compare(0, 22, "AccountingStorageType ") == 0) accounting = value("AccountingStorageType");
  }
  const uid_t uid = getuid();
  const std::string uid_tag = "(" + std::to_string(uid) + ")";
  const bool is_slurm_user = slurm_user.find(uid_tag) != std::string::npos;
  if (uid != 0 && !is_slurm_user && accounting == "accounting_storage/none")
    throw Error("live mode needs Slurm operator rights: run as root or as SlurmUser " + slurm_user +
                " (this cluster has no accounting database, so there are no other operators)");
  load_state();
  log_line("controller: policy " + options_.policy_name + ", " + std::to_string(snap_.nodes.size()) + " nodes, " +
           std::to_string(jobs_.size()) + " jobs restored from the state file");
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
    next_dense_id_ = doc.at("next_dense_id").get<int>();
    for (const auto& id : doc.at("finished")) finished_.insert(id.get<int64_t>());
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
      for (const auto& d : r.at("decided")) t.decided.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int>());
      for (const auto& d : r.at("last_alloc"))
        t.last_alloc.emplace_back(d.at(0).get<std::string>(), d.at(1).get<int>());
      t.attained_gpu_s = r.at("attained_gpu_s").get<double>();
      t.executed_s = r.at("executed_s").get<double>();
      t.last_stopped_s = r.at("last_stopped_s").get<double>();
      t.queued_since_s = r.at("queued_since_s").get<double>();
      t.preemptions = r.at("preemptions").get<int>();
      t.restarts = r.at("restarts").get<int>();
      t.was_running = r.at("was_running").get<bool>();
      for (const auto& s : r.at("segments")) {
        Segment seg;
        for (const auto& sl : s.at("placement")) seg.placement.push_back({sl.at(0).get<int>(), sl.at(1).get<int>()});
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
  doc["next_dense_id"] = next_dense_id_;
  doc["finished"] = json::array();
  for (int64_t id : finished_) doc["finished"].push_back(id);
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
    r["attained_gpu_s"] = t.attained_gpu_s;
    r["executed_s"] = t.executed_s;
    r["last_stopped_s"] = t.last_stopped_s;
    r["queued_since_s"] = t.queued_since_s;
    r["preemptions"] = t.preemptions;
    r["restarts"] = t.restarts;
    r["was_running"] = t.was_running;
    r["segments"] = json::array();
    for (const auto& s : t.segments) {
      json p = json::array();
      for (const auto& sl : s.placement) p.push_back({sl.server, sl.gpus});
      r["segments"].push_back({{"placement", p}, {"seconds", s.seconds}});
    }
    doc["jobs"].push_back(std::move(r));
  }
  write_file_atomic(options_.state_path, doc.dump(1) + "\n");
}

void Controller::log_decision(const Decision& d) {
  decisions_.push_back(d);
  std::ostringstream line;
  line.setf(std::ios::fixed);
  line.precision(1);
  line << "t=" << d.model_time_s << "s " << d.action << " job " << d.slurm_id << " (" << d.job_name << ")";
  if (!d.placement.empty()) line << " on " << d.placement;
  if (!d.note.empty()) line << " [" << d.note << "]";
  log_line(line.str());
  if (!options_.decision_log_path.empty()) {
    std::ofstream f(options_.decision_log_path, std::ios::app);
    f << json{{"t_s", d.model_time_s}, {"job", d.slurm_id},        {"name", d.job_name},
              {"action", d.action},    {"placement", d.placement}, {"note", d.note}}
             .dump()
      << "\n";
  }
}

// --- accounting --------------------------------------------------------------------------------

void Controller::make_oracle(Tracked& t) const {
  cl::ProgressOptions po;
  po.data_dir = options_.data_dir;
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
  for (size_t i = 0; i < node_names_.size(); ++i)
    if (node_names_[i] == node) return static_cast<int>(i);
  return -1;
}

cl::Placement Controller::to_placement(const Alloc& alloc) const {
  cl::Placement p;
  for (const auto& [n, g] : alloc) {
    const int s = server_of(n);
    if (s >= 0 && g > 0) p.push_back({s, g});
  }
  return p;
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
  // Arrival: when first seen, or its submit time if it was submitted while we were away.
  double arrival = model_now;
  if (j.submit_time > 0 && static_cast<double>(j.submit_time) + 2 < last_observe_wall_s_)
    arrival = model_time(static_cast<double>(j.submit_time));
  t.job.arrival_s = arrival;
  t.last_stopped_s = arrival;
  t.queued_since_s = arrival;
  make_oracle(t);
  return jobs_.emplace(j.id, std::move(t)).first->second;
}

bool Controller::observe(const SlurmSnapshot& snap, double wall_s) {
  snap_ = snap;
  node_names_.clear();
  for (const auto& n : snap_.nodes) node_names_.push_back(n.name);
  const double now = model_time(wall_s);
  const double dt = std::max(0.0, (wall_s - last_observe_wall_s_) / options_.time_scale);
  bool event = false;
  bool changed = false;
  std::set<int64_t> seen;
  for (auto& [id, t] : jobs_) t.slurm = nullptr;
  for (const SlurmJob& j : snap_.jobs) {
    if (finished_.count(j.id)) {
      // A job back from the dead (requeued after a state that looked final) is managed again.
      if (j.pending() || j.active_running()) {
        finished_.erase(j.id);
      } else {
        seen.insert(j.id);
        continue;
      }
    }
    if (j.finished()) {
      auto it = jobs_.find(j.id);
      if (it != jobs_.end()) {
        finished_.insert(j.id);
        log_line("job " + std::to_string(j.id) + " (" + it->second.job.name + ") finished: " + j.state);
        jobs_.erase(it);
        event = changed = true;
      }
      seen.insert(j.id);
      continue;
    }
    if (!(j.pending() || j.active_running())) {
      // In between (COMPLETING, REQUEUED, NODE_FAIL on the way back, SUSPENDED...): keep tracking
      // it, without showing it to the policy this round.
      if (jobs_.count(j.id)) seen.insert(j.id);
      continue;
    }
    const bool is_new = !jobs_.count(j.id);
    Tracked& t = track(j, now, wall_s);
    seen.insert(j.id);
    t.slurm = &j;
    if (is_new) event = changed = true;
    const bool running = j.active_running();
    Alloc alloc;
    for (const auto& a : j.allocation) alloc.emplace_back(a.node, a.gpus);
    if (t.was_running) {
      // Credit the interval since the last poll to the placement it ran on then.
      const int gpus = [&] {
        int g = 0;
        for (const auto& a : t.last_alloc) g += a.second;
        return g;
      }();
      t.executed_s += dt;
      t.attained_gpu_s += dt * gpus;
      const cl::Placement p = to_placement(t.last_alloc);
      if (!t.segments.empty() && t.segments.back().placement == p)
        t.segments.back().seconds += dt;
      else
        t.segments.push_back({p, dt});
      if (t.progress) t.progress->advance(dt);
      changed = true;
    }
    if (running && (!t.was_running || sorted(alloc) != sorted(t.last_alloc))) {
      ++t.restarts;
      if (t.progress) t.progress->on_placement(to_placement(alloc));
      t.last_alloc = alloc;
      changed = true;
    }
    if (!running && t.was_running) {
      // Stopped: by our requeuehold, or by Slurm (node failure, an admin's requeue). Either way it
      // is no longer placed by us, so step 1 of the next round holds it until the policy decides.
      t.released = false;
      t.decided.clear();
      t.requeued_nodes.clear();
      for (const auto& [n, g] : t.last_alloc) t.requeued_nodes.push_back(n);
      t.requeue_ready_wall_s = std::floor(wall_s + 1.0) + 1.05;
      ++t.preemptions;
      t.last_stopped_s = now;
      t.queued_since_s = now;
      if (t.progress) t.progress->on_placement({});
      t.last_alloc.clear();
      changed = true;
    }
    t.was_running = running;
    if (t.restart_pending && j.pending() && j.held() && wall_s >= t.requeue_ready_wall_s) {
      t.restart_pending = false;
      event = true;
    }
  }
  // Jobs gone from squeue (purged after MinJobAge, or cancelled long ago).
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (!seen.count(it->first)) {
      finished_.insert(it->first);
      log_line("job " + std::to_string(it->first) + " (" + it->second.job.name + ") left the queue");
      it = jobs_.erase(it);
      event = changed = true;
    } else {
      ++it;
    }
  }
  for (auto it = finished_.begin(); it != finished_.end();) it = seen.count(*it) ? std::next(it) : finished_.erase(it);
  last_observe_wall_s_ = wall_s;
  if (changed) save_state();
  return event;
}

// --- decisions ---------------------------------------------------------------------------------

RoundStat Controller::round(double wall_s) {
  RoundStat stat;
  const auto t_begin = std::chrono::steady_clock::now();
  stat.model_time_s = model_time(wall_s);
  const double now = stat.model_time_s;

  // 1. Pending jobs the controller did not release (new, requeued by Slurm after a node failure,
  // or released by someone else) go back on hold until the policy places them.
  std::vector<std::pair<int64_t, Alloc>> to_hold;
  for (auto& [id, t] : jobs_) {
    if (!t.slurm) continue;
    if (t.slurm->pending() && !t.slurm->held() && !t.released) to_hold.push_back({id, {}});
    if (t.slurm->pending() && t.slurm->held()) t.released = false;
  }

  // 2. The view: usable nodes' GPUs minus those held by jobs the policy does not see.
  cl::ClusterSpec spec;
  spec.name = "slurm";
  for (size_t i = 0; i < snap_.nodes.size(); ++i) {
    cl::Server s;
    s.id = static_cast<int>(i);
    s.name = snap_.nodes[i].name;
    s.gpus = snap_.nodes[i].usable() ? snap_.nodes[i].gpus : 0;
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
  std::vector<Tracked*> order;
  for (auto& [id, t] : jobs_)
    if (t.slurm) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const Tracked* a, const Tracked* b) {
    if (a->job.arrival_s != b->job.arrival_s) return a->job.arrival_s < b->job.arrival_s;
    return a->job.id < b->job.id;
  });
  std::vector<cl::JobView> views;
  std::vector<Alloc> current;
  for (Tracked* t : order) {
    Alloc cur;
    if (t->slurm->active_running())
      cur = t->last_alloc;
    else if (t->released)
      cur = t->decided;
    // A job on a node that is no longer usable cannot keep it (Slurm will requeue it).
    cl::JobView v;
    v.job = &t->job;
    v.placement = to_placement(cur);
    for (const auto& sl : v.placement)
      if (spec.servers[sl.server].gpus == 0) v.placement.clear();
    v.attained_gpu_s = t->attained_gpu_s;
    v.executed_s = t->executed_s;
    v.last_stopped_s = t->last_stopped_s;
    v.queued_since_s = t->queued_since_s;
    v.preemptions = t->preemptions;
    v.restarts = t->restarts;
    v.oracle = t->progress.get();
    views.push_back(v);
    current.push_back(cur);
  }
  stat.active_jobs = static_cast<int>(views.size());
  std::vector<cl::Placement> out(views.size());
  for (size_t i = 0; i < views.size(); ++i) out[i] = views[i].placement;
  cl::ClusterView cv;
  cv.cluster = &spec;
  cv.now_s = now;
  cv.round_s = options_.round_s;
  policy_.schedule(cv, views, out);

  // 3. Decisions -> actions. Slurm runs one GPU count on every node of a job. A placement with
  // different counts per server (4+2) is reshaped to the same total with a uniform count (3+3, or
  // 2+2+2) on servers that have the GPUs free after every other decision, preferring the policy's
  // servers; if no such shape exists it is narrowed to the smallest count on each of its servers.
  // Either way a job never gets more GPUs than decided in total nor more than its request.
  struct Action {
    Tracked* t;
    bool stop;    // requeuehold (running) / hold (released, pending)
    Alloc start;  // place + release (empty: none)
    std::string note;
  };
  const int num_servers = static_cast<int>(spec.servers.size());
  std::vector<int> free_gpus(num_servers);
  for (int s = 0; s < num_servers; ++s) free_gpus[s] = spec.servers[s].gpus;
  for (const auto& p : out)
    for (const auto& sl : p)
      if (sl.server >= 0 && sl.server < num_servers) free_gpus[sl.server] -= sl.gpus;
  std::vector<Action> actions;
  for (size_t i = 0; i < order.size(); ++i) {
    Tracked* t = order[i];
    std::vector<int> own(num_servers, 0);
    std::vector<int> servers;  // the policy's, in its order
    int total = 0, min_g = 0, max_g = 0;
    for (const auto& sl : out[i]) {
      if (sl.gpus <= 0 || sl.server < 0 || sl.server >= num_servers) continue;
      if (own[sl.server] == 0) servers.push_back(sl.server);
      own[sl.server] += sl.gpus;
      total += sl.gpus;
    }
    for (int s : servers) {
      min_g = min_g == 0 ? own[s] : std::min(min_g, own[s]);
      max_g = std::max(max_g, own[s]);
    }
    Alloc want;
    std::string note;
    std::vector<int> taken(num_servers, 0);
    if (total > 0) {
      const int goal = std::min(total, t->cap_gpus);
      if (goal == total && min_g == max_g) {
        for (int s : servers) taken[s] = own[s];
      } else {
        bool shaped = false;
        for (int g = std::min(goal, spec.max_gpus_per_server()); g >= 1 && !shaped; --g) {
          if (goal % g) continue;
          const int k = goal / g;
          std::vector<int> pick;
          for (int s : servers)
            if (free_gpus[s] + own[s] >= g && static_cast<int>(pick.size()) < k) pick.push_back(s);
          std::vector<int> others;
          for (int s = 0; s < num_servers; ++s)
            if (!own[s] && free_gpus[s] >= g) others.push_back(s);
          std::stable_sort(others.begin(), others.end(), [&](int a, int b) { return free_gpus[a] > free_gpus[b]; });
          for (int s : others)
            if (static_cast<int>(pick.size()) < k) pick.push_back(s);
          if (static_cast<int>(pick.size()) == k) {
            for (int s : pick) taken[s] = g;
            shaped = true;
            note = "reshaped to " + std::to_string(k) + " node(s) x " + std::to_string(g) + " GPUs (uniform per node)";
          }
        }
        if (!shaped) {
          int kept = 0;
          for (int s : servers)
            if ((kept + 1) * min_g <= goal) {
              taken[s] = min_g;
              ++kept;
            }
          note = "narrowed to " + std::to_string(kept) + " node(s) x " + std::to_string(min_g) +
                 " GPUs (uniform per node, <= decided)";
        }
      }
      for (int s : servers)
        if (taken[s]) want.emplace_back(node_names_[s], taken[s]);
      for (int s = 0; s < num_servers; ++s)
        if (taken[s] && !own[s]) want.emplace_back(node_names_[s], taken[s]);
      for (int s = 0; s < num_servers; ++s) free_gpus[s] += own[s] - taken[s];
    }
    const Alloc& cur = current[i];
    if (sorted(want) == sorted(cur) && !(want.empty() && views[i].placement.empty() && !cur.empty())) continue;
    if (want.empty() && cur.empty()) continue;
    if (!t->slurm->active_running() && !want.empty() && wall_s < t->requeue_ready_wall_s) {
      bool overlaps = false;
      for (const auto& w : want)
        if (std::find(t->requeued_nodes.begin(), t->requeued_nodes.end(), w.first) != t->requeued_nodes.end())
          overlaps = true;
      if (overlaps) {
        // Not yet: a round is triggered once the requeue has settled (see observe()).
        t->restart_pending = true;
        continue;
      }
    }
    Action a{t, !cur.empty() && (t->slurm->active_running() || t->released), want, note};
    // Moving a running job: `scontrol requeuehold` returns before Slurm has finished the requeue,
    // and a job updated and released in between is held again by it with a ~2 min BeginTime. So
    // a move is a preemption now and a placement at the round right after Slurm shows the job
    // held (observe() triggers that round).
    if (t->slurm->active_running() && !want.empty()) {
      a.start.clear();
      a.note = "restart on " + alloc_text(want) + (note.empty() ? "" : " (" + note + ")") + " once requeued";
      t->restart_pending = true;
    }
    actions.push_back(a);
  }
  const auto t_decided = std::chrono::steady_clock::now();
  stat.decide_ms = std::chrono::duration<double, std::milli>(t_decided - t_begin).count();

  // 4. Apply: holds first, then stops (free GPUs), then starts.
  const int64_t cmds_before = slurm_.commands_run();
  for (const auto& [id, unused] : to_hold) {
    Tracked& t = jobs_.at(id);
    try {
      slurm_.hold(id);
      log_decision({now, wall_s, id, t.job.name, "hold", "", "pending without a placement from the controller"});
    } catch (const SlurmError& e) {
      if (e.kind() != SlurmError::Kind::Command) throw;
      log_line(std::string("hold failed: ") + e.what());
    }
  }
  for (const Action& a : actions) {
    if (!a.stop) continue;
    Tracked& t = *a.t;
    try {
      if (t.slurm->active_running()) {
        slurm_.requeue_hold(t.slurm_id);
        // Account the stop here, so the next poll does not take our own requeue (before a move's
        // release) for a stop by Slurm and hold the job again.
        t.was_running = false;
        t.requeued_nodes.clear();
        for (const auto& [n, g] : t.last_alloc) t.requeued_nodes.push_back(n);
        t.requeue_ready_wall_s = std::floor(wall_now() + 1.0) + 1.05;
        t.last_alloc.clear();
        ++t.preemptions;
        t.last_stopped_s = now;
        t.queued_since_s = now;
        if (t.progress) t.progress->on_placement({});
      } else {
        slurm_.hold(t.slurm_id);
      }
      t.released = false;
      t.decided.clear();
      save_state();
      if (a.start.empty()) log_decision({now, wall_s, t.slurm_id, t.job.name, "preempt", "", a.note});
    } catch (const SlurmError& e) {
      if (e.kind() != SlurmError::Kind::Command) throw;
      log_line(std::string("preempt failed: ") + e.what());
    }
    ++stat.actions;
  }
  for (const Action& a : actions) {
    if (a.start.empty()) continue;
    Tracked& t = *a.t;
    std::vector<std::string> nodes;
    for (const auto& [n, g] : a.start) nodes.push_back(n);
    try {
      // Record the intent first: if we die between the calls, the next start sees a held job
      // (released=false wins over the file) or a released one it knows.
      t.decided = a.start;
      slurm_.place(t.slurm_id, nodes, a.start[0].second);
      t.released = true;
      save_state();
      slurm_.release(t.slurm_id);
      log_decision({now, wall_now(), t.slurm_id, t.job.name, a.stop ? "move" : "place", alloc_text(a.start), a.note});
    } catch (const SlurmError& e) {
      if (e.kind() != SlurmError::Kind::Command) throw;
      t.released = false;
      t.decided.clear();
      save_state();
      log_line(std::string("place failed: ") + e.what());
    }
    ++stat.actions;
  }
  stat.slurm_commands = static_cast<int>(slurm_.commands_run() - cmds_before);
  stat.apply_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_decided).count();
  rounds_.push_back(stat);
  return stat;
}

void Controller::run(const std::function<bool()>& stop,
                     const std::function<void(const SlurmSnapshot&, double)>& on_poll) {
  double next_round_wall = 0;  // decide at once
  double retry_s = 0.5;
  bool unreachable = false;
  while (!stop()) {
    const double wall = wall_now();
    try {
      SlurmSnapshot snap = slurm_.snapshot();
      const double polled = wall_now();
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
    } catch (const SlurmError& e) {
      if (e.kind() == SlurmError::Kind::Command) {
        log_line(std::string("Slurm command failed: ") + e.what() + "; retrying");
      } else {
        log_line(std::string(e.kind() == SlurmError::Kind::Auth ? "Slurm refused us (" : "slurmctld unreachable (") +
                 e.what() + "); retrying in " + std::to_string(retry_s).substr(0, 3) + " s");
        unreachable = true;
      }
      sleep_s(retry_s);
      retry_s = std::min(options_.retry_max_s, retry_s * 2);
      continue;
    }
    const double spent = wall_now() - wall;
    if (spent < options_.poll_s) sleep_s(options_.poll_s - spent);
  }
}

}  // namespace dmlkit::live
