// Replay of a workload on a live Slurm cluster (see replay.h): submission at scaled arrival times,
// the speed-model emulator that tells each job when its work is done, the comparison with the
// simulator's run of the same policy on the same jobs.
#include "live/replay.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/data_dir.h"
#include "cluster/model/harmony_job.h"
#include "cluster/speed/progress_model.h"
#include "cluster/speed/ps_assignment.h"
#include "cluster/speed/ps_speed.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"
#include "live/job_meta.h"
#include "live/timed_backend.h"

namespace dmlkit::live {

namespace cl = dmlkit::cluster;
namespace fs = std::filesystem;

std::pair<int, int> request_shape(int gpus, int gpus_per_node, int max_nodes) {
  if (gpus < 1 || gpus_per_node < 1) return {0, 0};
  for (int nodes = (gpus + gpus_per_node - 1) / gpus_per_node; nodes <= std::min(gpus, max_nodes); ++nodes)
    if (gpus % nodes == 0 && gpus / nodes <= gpus_per_node) return {nodes, gpus / nodes};
  return {0, 0};
}

namespace {

const char* kJobScript =
    "#!/bin/sh\n"
    "# dmlkit replay job: holds its allocation until the replay driver's speed model says its work\n"
    "# is done (the driver then creates the file named by $1), and exits 0.\n"
    "while [ ! -e \"$1\" ]; do sleep 0.05; done\n"
    "exit 0\n";

bool safe_name(const std::string& s) {
  if (s.empty() || s.size() > 100) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) return false;
  return s[0] != '.';
}

struct Emulated {
  const cl::Job* job = nullptr;
  std::string name;  // safe name for files and the comment
  int nodes = 0, gpus_per_node = 0;
  int64_t slurm_id = 0;
  bool submitted = false;
  double arrival_wall_s = 0;
  std::unique_ptr<cl::JobProgress> progress;
  bool running = false;
  std::vector<std::pair<std::string, int>> alloc;
  int restarts_seen = -1;
  double last_wall_s = 0;
  double restart_left_s = 0;
  bool done_marked = false;
  double finish_wall_s = -1;
  std::string final_state;
  int starts = 0;
  bool seen = false;                 // the controller has seen it (arrival latency measured)
  double done_wall_s = -1;           // when the done file was created
  std::vector<ReplayJob::Run> runs;  // wall start, end (-1: running), GPUs
  bool cancelled = false;            // cancelled when the replay ended
};

// Cancels every submitted job that has not ended when the replay ends, however it ends.
class CancelGuard {
 public:
  CancelGuard(ClusterBackend& slurm, std::vector<Emulated>& jobs, std::ostream* log)
      : slurm_(slurm), jobs_(jobs), log_(log) {}
  CancelGuard(const CancelGuard&) = delete;
  CancelGuard& operator=(const CancelGuard&) = delete;
  ~CancelGuard() { cancel_all(); }
  // Returns the number of jobs cancelled (each at most once).
  int cancel_all() {
    int cancelled = 0;
    for (auto& e : jobs_) {
      if (!e.submitted || e.finish_wall_s >= 0 || e.cancelled) continue;
      e.cancelled = true;
      try {
        slurm_.cancel(e.slurm_id);
        ++cancelled;
      } catch (const std::exception& ex) {
        if (log_) *log_ << "replay: could not cancel job " << e.slurm_id << ": " << ex.what() << std::endl;
      }
    }
    return cancelled;
  }

 private:
  ClusterBackend& slurm_;
  std::vector<Emulated>& jobs_;
  std::ostream* log_;
};

}  // namespace

ReplayResult run_replay(ClusterBackend& backend, const ReplayOptions& o) {
  TimedBackend slurm(backend);  // every call timed: the command latencies of the calibration
  if (!(o.time_scale > 0)) throw Error("--time-scale: must be positive");
  if (!(o.round_s > 0)) throw Error("--round: must be positive");
  if (o.work_dir.empty()) throw Error("replay: no work directory");
  // Slurm resolves a relative path from slurmd's folder, not ours: every path it sees is absolute.
  const std::string work_dir = fs::absolute(o.work_dir).lexically_normal().string();
  const std::string data_dir = o.data_dir.empty() ? dmlkit::default_data_dir() : o.data_dir;
  ReplayResult result;

  // The cluster as Slurm has it.
  const std::vector<SlurmNode> nodes = slurm.nodes();
  if (nodes.empty()) throw Error("Slurm reports no nodes");
  const int gpn = nodes.front().gpus;
  for (const auto& n : nodes)
    if (n.gpus != gpn)
      throw Error("replay needs nodes with equal GPU counts (" + n.name + " has " + std::to_string(n.gpus) + ", " +
                  nodes.front().name + " has " + std::to_string(gpn) + ")");
  if (gpn < 1) throw Error("Slurm reports no GPUs (GRES gpu) on its nodes");
  cl::ClusterSpec spec = cl::ClusterSpec::homogeneous(static_cast<int>(nodes.size()), gpn);
  for (size_t i = 0; i < nodes.size(); ++i) spec.servers[i].name = nodes[i].name;
  result.cluster_nodes = spec.num_servers();
  result.cluster_gpus = spec.total_gpus();

  // The workload: the first max_jobs jobs whose request Slurm can express on this cluster.
  cl::WorkloadOptions wo;
  wo.data_dir = data_dir;
  wo.cluster_gpus = spec.total_gpus();
  wo.drop_oversized = true;
  const cl::Workload full = cl::load_workload(o.workload, wo);
  cl::Workload w;
  w.name = full.name;
  w.path = full.path;
  result.dropped = full.dropped_oversized;
  for (const auto& j : full.jobs) {
    if (o.max_jobs > 0 && static_cast<int>(w.jobs.size()) >= o.max_jobs) break;
    if (request_shape(j.num_gpus, gpn, spec.num_servers()).first == 0) {
      ++result.dropped;
      continue;
    }
    if (j.kind == cl::WorkKind::ParameterServer && j.ps->worker.gpus < 1)
      throw Error(full.path, j.source_line, "type",
                  "parameter-server jobs with CPU workers are not supported in live mode (Slurm places GPU jobs)");
    cl::Job copy = j;
    copy.id = static_cast<int>(w.jobs.size());
    w.jobs.push_back(copy);
  }
  if (w.jobs.empty()) throw Error(full.path + ": no job of the workload fits this cluster");

  // The simulator's prediction for the same policy, cluster and jobs.
  cl::SimConfig sc;
  sc.round_s = o.round_s;
  sc.restart_delay_s = o.restart_delay_s;
  sc.data_dir = data_dir;
  auto sim_policy = cl::make_policy(o.policy, o.policy_options);
  result.sim = cl::simulate(spec, w, o.policy, *sim_policy, sc);
  const cl::SimResult& sim = result.sim;
  result.sim_makespan_s = sim.makespan_s;

  // Work directory: job script, done files, output, controller state.
  fs::create_directories(work_dir + "/done");
  fs::create_directories(work_dir + "/out");
  for (const auto& e : fs::directory_iterator(work_dir + "/done")) fs::remove(e.path());
  const std::string script = fs::absolute(work_dir + "/replay-job.sh").string();
  {
    std::ofstream f(script);
    f << kJobScript;
  }
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  const std::string state_path = work_dir + "/controller-state.json";
  fs::remove(state_path);
  fs::remove(work_dir + "/decisions.jsonl");

  cl::ProgressOptions po;
  po.data_dir = data_dir;
  bool ps_jobs = false;
  for (const auto& j : w.jobs) ps_jobs = ps_jobs || j.kind == cl::WorkKind::ParameterServer;
  if (ps_jobs) {  // as the simulator's defaults: the table speed model, the policy's PS assignment
    po.ps_speed = cl::make_ps_speed_model("table", data_dir);
    po.ps_balance =
        std::make_shared<cl::PsBalanceTable>(data_dir, cl::parse_ps_assignment(sim_policy->ps_assignment()));
  }
  std::vector<Emulated> em(w.jobs.size());
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    em[i].job = &w.jobs[i];
    em[i].name = safe_name(w.jobs[i].name) ? w.jobs[i].name : "job-" + std::to_string(i);
    std::tie(em[i].nodes, em[i].gpus_per_node) = request_shape(w.jobs[i].num_gpus, gpn, spec.num_servers());
    em[i].progress = cl::make_job_progress(w.jobs[i], po);
  }
  CancelGuard guard(slurm, em, o.log);
  auto interrupted = [&o] { return o.interrupted && o.interrupted(); };

  auto policy = cl::make_policy(o.policy, o.policy_options);
  ControllerOptions co;
  co.policy_name = o.policy;
  co.round_s = o.round_s;
  co.time_scale = o.time_scale;
  co.poll_s = o.poll_s;
  co.start_timeout_s = o.start_timeout_s;
  co.repair_gres_leaks = o.repair_gres_leaks;
  co.max_retries = o.max_retries;
  co.unexpressible = o.unexpressible;
  co.state_path = state_path;
  co.decision_log_path = work_dir + "/decisions.jsonl";
  co.data_dir = data_dir;
  co.log = o.log;
  Controller controller(slurm, *policy, co);
  controller.start(interrupted);
  const double t0 = slurm.now_s() + 0.5;  // the backend's clock, as every wall time of the run
  controller.set_t0_wall_s(t0);
  double last_arrival = 0;
  for (const auto& j : w.jobs) last_arrival = std::max(last_arrival, j.arrival_s);
  const double max_wall_s =
      o.max_wall_s > 0 ? o.max_wall_s : (std::max(sim.makespan_s, last_arrival) * 3 + 1200) * o.time_scale + 120;

  std::map<int64_t, size_t> by_id;
  std::map<int64_t, double> placed_at;     // slurm id -> wall time of its latest place/move
  std::map<int64_t, double> preempted_at;  // slurm id -> wall time of its latest preempt/move
  std::map<int64_t, double> moved_at;      // slurm id -> wall time of a preemption to restart elsewhere
  size_t decisions_seen = 0;
  size_t finished = 0;
  bool timed_out = false;

  auto on_poll = [&](const SlurmSnapshot& snap, double wall) {
    // New decisions: remember when each placement was applied (start-latency measurement).
    const auto& ds = controller.decisions();
    for (; decisions_seen < ds.size(); ++decisions_seen) {
      const Decision& d = ds[decisions_seen];
      if (d.action == "place" || d.action == "move") placed_at[d.slurm_id] = d.wall_s;
      // A preemption is applied before its decision is logged; a move's requeuehold comes before
      // its placement, so the move's time is an upper bound of when the job was stopped.
      if (d.action == "preempt" || d.action == "move") preempted_at[d.slurm_id] = d.wall_s;
      // A move (preempted to restart elsewhere): its restart cost counts from the stop.
      if (d.action == "preempt" && d.note.rfind("restart on", 0) == 0) moved_at[d.slurm_id] = d.wall_s;
    }
    // Emulate every submitted job on what Slurm reports.
    std::map<int64_t, const SlurmJob*> jobs;
    for (const auto& j : snap.jobs) jobs[j.id] = &j;
    for (auto& e : em) {
      if (!e.submitted || e.finish_wall_s >= 0) continue;
      auto it = jobs.find(e.slurm_id);
      if (it == jobs.end()) continue;
      const SlurmJob& j = *it->second;
      if (!e.seen) {  // the controller observes this snapshot right after this call
        e.seen = true;
        result.arrival_latency_s.push_back(wall - e.arrival_wall_s);
      }
      if (e.running && !j.active_running()) {  // stopped: preempted, failed or done
        if (!e.runs.empty()) e.runs.back().end_s = wall;
        if (!j.finished()) e.done_wall_s = -1;  // stopped after its work was done: no completion sample
        auto pr = preempted_at.find(e.slurm_id);
        if (pr != preempted_at.end()) {
          if (!j.finished()) result.preemption_latency_s.push_back(std::max(0.0, wall - pr->second));
          preempted_at.erase(pr);
        }
      }
      // A job that failed on its own is final only once the controller gives up on it (it
      // observes this snapshot after this call, so a job it retries is pending again next poll).
      if (j.finished() && j.state != "COMPLETED" && !controller.finished().count(e.slurm_id)) {
        if (e.running) e.progress->on_placement({});
        e.running = false;
        continue;
      }
      if (j.finished()) {
        if (j.state == "COMPLETED" && e.done_wall_s >= 0) result.completion_latency_s.push_back(wall - e.done_wall_s);
        e.finish_wall_s = wall;
        e.final_state = j.state;
        ++finished;
        if (j.state != "COMPLETED" && o.log)
          *o.log << "replay: job " << e.name << " ended " << j.state << " before its work was done" << std::endl;
        continue;
      }
      if (j.active_running()) {
        std::vector<std::pair<std::string, int>> alloc;
        for (const auto& a : j.allocation) alloc.emplace_back(a.node, a.gpus);
        if (!e.running || alloc != e.alloc || j.restarts != e.restarts_seen) {
          // The placement the controller shows the policy for this allocation (a PS job: its tasks).
          // The controller has seen this snapshot's job before only if it was seen at an earlier
          // poll; a job first seen running here maps its GPUs as slices.
          cl::Placement p = controller.placement_of(e.slurm_id, alloc);
          if (p.empty())
            for (const auto& [n, g] : alloc)
              for (size_t s = 0; s < nodes.size(); ++s)
                if (nodes[s].name == n && g > 0) p.push_back({static_cast<int>(s), g});
          e.progress->on_placement(p);
          e.restart_left_s = o.restart_delay_s;
          e.running = true;
          e.alloc = alloc;
          e.restarts_seen = j.restarts;
          e.last_wall_s = wall;
          if (!e.runs.empty() && e.runs.back().end_s < 0) e.runs.back().end_s = wall;  // moved while seen running
          int gpus = 0;
          for (const auto& a : alloc) gpus += a.second;
          e.runs.push_back({wall, -1, gpus});
          auto pa = placed_at.find(e.slurm_id);
          if (pa != placed_at.end()) {
            result.start_latency_s.push_back(wall - pa->second);
            // A restart after a move costs from the stop (requeue, settle, placement, start);
            // one after a preemption from its placement (the time stopped was the policy's).
            auto mv = moved_at.find(e.slurm_id);
            const double from = mv != moved_at.end() ? std::min(mv->second, pa->second) : pa->second;
            if (e.starts == 0)
              result.first_start_latency_s.push_back(wall - pa->second);
            else
              result.restart_latency_s.push_back(wall - from);
            placed_at.erase(pa);
          }
          moved_at.erase(e.slurm_id);
          ++e.starts;
        } else {
          double dt = (wall - e.last_wall_s) / o.time_scale;
          e.last_wall_s = wall;
          const double pause = std::min(dt, e.restart_left_s);
          e.restart_left_s -= pause;
          dt -= pause;
          if (dt > 0 && !e.progress->finished()) e.progress->advance(dt);
        }
        if (e.progress->finished() && !e.done_marked) {
          std::ofstream(work_dir + "/done/" + e.name) << "done\n";
          e.done_marked = true;
          e.done_wall_s = wall;
        }
      } else if (e.running) {
        e.progress->on_placement({});
        e.running = false;
      }
    }
    // Submit the jobs whose (scaled) arrival time has come.
    for (auto& e : em) {
      if (e.submitted || t0 + e.job->arrival_s * o.time_scale > wall) continue;
      JobMeta meta;
      meta.application = e.job->application;
      meta.batch_size = e.job->batch_size;
      meta.gpus = e.job->num_gpus;
      if (e.job->kind == cl::WorkKind::FixedDuration) meta.duration_s = e.job->duration_s;
      if (e.job->kind == cl::WorkKind::ParameterServer) {  // the controller rebuilds it from its type
        const cl::PsJobSpec& ps = *e.job->ps;
        meta.application.clear();
        meta.ps_type = ps.harmony_type >= 0 ? cl::harmony_job_types()[ps.harmony_type].name : ps.job_type().name;
        meta.workers = ps.user_workers;
        meta.ps = ps.user_ps;
        meta.epochs = ps.total_epochs;
        meta.async = ps.mode == cl::PsTrainingMode::Async;
        meta.seed = ps.seed;
      }
      meta.name = e.name;
      const std::string done = work_dir + "/done/" + e.name;
      JobRequest q;
      q.name = "dmlkit-" + e.name;
      q.nodes = e.nodes;
      q.gpus_per_node = e.gpus_per_node;
      q.comment = format_job_meta(meta);
      q.script = script;
      q.script_args = {done};
      q.output = work_dir + "/out/%j.out";
      q.work_dir = work_dir;
      e.slurm_id = slurm.submit(q);
      e.submitted = true;
      e.arrival_wall_s = t0 + e.job->arrival_s * o.time_scale;
      by_id[e.slurm_id] = static_cast<size_t>(&e - em.data());
    }
  };
  controller.run(
      [&] {
        if (slurm.now_s() - t0 > max_wall_s) timed_out = true;
        if (interrupted()) result.interrupted = true;
        return finished == em.size() || timed_out || result.interrupted;
      },
      on_poll);
  result.cancelled = guard.cancel_all();
  if (result.interrupted && o.log)
    *o.log << "replay: interrupted; cancelled " << result.cancelled << " of the jobs it submitted" << std::endl;
  if (timed_out && o.log)
    *o.log << "replay: gave up after " << max_wall_s << " wall seconds with " << (em.size() - finished)
           << " jobs unfinished" << std::endl;

  // Results.
  double sim_sum = 0, real_sum = 0;
  int both = 0;
  double first_arrival = 1e300, last_finish = 0;
  result.complete = !timed_out && !result.interrupted;
  for (size_t i = 0; i < em.size(); ++i) {
    const auto& e = em[i];
    ReplayJob r;
    r.name = e.name;
    r.application = e.job->application;
    r.num_gpus = e.job->num_gpus;
    r.arrival_s = e.job->arrival_s;
    r.slurm_id = e.slurm_id;
    r.real_restarts = e.starts;
    r.real_state = e.final_state;
    if (e.finish_wall_s >= 0 && e.final_state != "COMPLETED") ++result.failed;
    for (const auto& run : e.runs)
      r.real_runs.push_back(
          {(run.start_s - t0) / o.time_scale, run.end_s < 0 ? -1.0 : (run.end_s - t0) / o.time_scale, run.gpus});
    const auto& sj = sim.jobs[i];
    if (sj.finished()) r.sim_jct_s = sj.jct_s();
    r.sim_preemptions = sj.preemptions;
    if (e.finish_wall_s >= 0 && e.final_state == "COMPLETED") {
      r.real_jct_s = (e.finish_wall_s - e.arrival_wall_s) / o.time_scale;
      first_arrival = std::min(first_arrival, e.job->arrival_s);
      last_finish = std::max(last_finish, e.job->arrival_s + r.real_jct_s);
    }
    if (r.sim_jct_s >= 0 && r.real_jct_s >= 0) {
      sim_sum += r.sim_jct_s;
      real_sum += r.real_jct_s;
      ++both;
    } else {
      result.complete = false;
    }
    result.jobs.push_back(r);
  }
  if (both > 0) {
    result.sim_avg_jct_s = sim_sum / both;
    result.real_avg_jct_s = real_sum / both;
  }
  if (last_finish > 0) result.real_makespan_s = last_finish - first_arrival;
  result.rounds = controller.rounds();
  result.decisions = controller.decisions();
  for (const char* kind : {"poll", "place", "release", "hold", "requeue", "submit"})
    result.command_latency_s[kind] = slurm.samples(kind);
  return result;
}

cl::Calibration replay_calibration(const ReplayResult& r, const ReplayOptions& o) {
  cl::Calibration c;
  c.time_scale = o.time_scale;
  c.arrival = cl::latency_stat(r.arrival_latency_s);
  c.start = cl::latency_stat(r.first_start_latency_s);
  c.restart = cl::latency_stat(r.restart_latency_s);
  c.preemption = cl::latency_stat(r.preemption_latency_s);
  c.completion = cl::latency_stat(r.completion_latency_s);
  auto command = [&r](const char* kind) {
    auto it = r.command_latency_s.find(kind);
    return cl::latency_stat(it == r.command_latency_s.end() ? std::vector<double>{} : it->second);
  };
  c.poll = command("poll");
  c.place = command("place");
  c.release = command("release");
  c.hold = command("hold");
  c.requeue = command("requeue");
  c.submit = command("submit");
  c.source_command = "cluster replay --slurm";
  c.source_workload = o.workload;
  c.source_policy = o.policy;
  c.source_jobs = static_cast<int>(r.jobs.size());
  c.source_nodes = r.cluster_nodes;
  c.source_gpus = r.cluster_gpus;
  c.source_restart_delay_s = o.restart_delay_s;
  return c;
}

}  // namespace dmlkit::live
