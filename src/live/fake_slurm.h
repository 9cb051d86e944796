// An in-memory Slurm for tests of the live controller (as LevelDB tests run against an in-memory
// Env): a ClusterBackend with nodes, jobs and a virtual clock, no daemons and no waiting.
//
// It follows the 22.05 behaviour the controller relies on (docs/live-mode.md, measured on the lab):
//   submit        the job enters PENDING and held (priority 0), as with the lab's job_submit.lua;
//   place         pins a pending job to exactly those nodes and GPUs per node (refused for a
//                 running job, an unknown node, or more nodes than named);
//   release       the job may start: it does at the next scheduler tick (advance()) if its nodes
//                 are usable and have the GPUs free, else it stays PENDING (reason Resources);
//   hold          a pending job may not start (refused for a running one);
//   requeue_hold  a running (or finished) job goes back to PENDING held, frees its GPUs, Restarts + 1;
//   cancel        the job ends CANCELLED.
// Finished jobs stay listed for min_job_age_s (Slurm's MinJobAge), then disappear.
// A job runs until finish() is called, or for its run time (set_run_time: wall seconds from its
// latest start, as a batch script restarted from scratch). Faults: Slurm unreachable or refusing
// our credentials (every call throws), one refused command, a node that fails (down, its running
// jobs requeued by Slurm, not held) or is drained, and comes back.
// Time moves only through advance() / sleep_s(); the scheduler ticks at every advance. Not
// thread-safe (drive it from one thread).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/sim/calibration.h"
#include "core/rng.h"
#include "live/slurm_names.h"

namespace dmlkit::live {

// A loaded cluster manager's latencies (cluster/sim/calibration.h), for `cluster replay --fake
// --calibration` (the controller's own behaviour under the measured latencies): every call
// advances the virtual clock by a draw of its kind (a snapshot: half before it reads the state,
// half after); a released job starts no earlier than a drawn start delay after its release; a job
// whose done file appeared completes a drawn completion delay later; a job requeued by
// requeue_hold keeps its GPUs busy for a drawn settle delay (Slurm's epilog). All zero by default.
struct FakeLatencies {
  cluster::LatencyDraw poll, place, release, hold, requeue, submit;  // wall time of each call
  cluster::LatencyDraw start, completion, settle;                    // Slurm-side delays
  uint64_t seed = 1;
};
// The latencies of a calibration file (statistic: constants or draws from its samples), for a
// controller polling every `poll_s` wall seconds.
FakeLatencies fake_latencies(const cluster::Calibration& c, cluster::CalibrationStatistic statistic, double poll_s,
                             uint64_t seed);

class FakeSlurm final : public ClusterBackend {
 public:
  explicit FakeSlurm(double start_wall_s = 1.0e9);

  // --- the cluster ---
  void add_node(const std::string& name, int gpus);
  void add_nodes(int count, int gpus, const std::string& prefix = "node");  // node1..nodeN
  // Node state as sinfo shows it ("idle", "down", "drained", "idle*" for not responding, ...);
  // "" restores the state derived from its use (idle / mixed / allocated).
  void set_node_state(const std::string& node, const std::string& state, std::vector<std::string> flags = {});
  // The node dies: down and not responding; Slurm requeues its running jobs (PENDING, not held,
  // reason BeginTime, Restarts + 1).
  void fail_node(const std::string& node);
  void resume_node(const std::string& node) { set_node_state(node, ""); }
  // A node that looks idle but on which Slurm never starts a job (it stays PENDING, reason
  // Resources), as the lab showed after a node failure (docs/live-mode.md, Faults).
  void set_refuses_starts(const std::string& node, bool on);
  // Slurm 22.05's GRES leak: `gpus` of the node stay counted as used with no job on them, until
  // reconfigure() recounts.
  void leak_gpus(const std::string& node, int gpus);
  int reconfigures() const { return reconfigures_; }

  // --- jobs, as a test or a user changes them ---
  void set_run_time(int64_t id, double seconds);  // completes that long after each start
  // Start latency: a released job starts at the first tick at least `seconds` after its release
  // (0: the next tick). Lets a test inject a known latency and measure it back.
  void set_start_delay(double seconds) { start_delay_s_ = seconds; }
  // The latencies of a loaded cluster manager (see FakeLatencies); replaces the draws' RNG.
  void set_latencies(FakeLatencies latencies);
  // A running job whose first script argument names an existing file completes (exit 0) at the
  // next tick, as the replay's batch script does when its "done" file appears.
  void set_done_file_jobs(bool on) { done_file_jobs_ = on; }
  // Its next `runs` runs end FAILED (a non-zero exit) when their run time is over, not COMPLETED;
  // a job without a run time fails at the first tick after it starts.
  void set_failing_runs(int64_t id, int runs);
  // Jobs submitted from now on with this name (-J) get set_failing_runs(id, runs).
  void fail_runs_of(const std::string& job_name, int runs) { failing_names_[job_name] = runs; }
  void finish(int64_t id, const std::string& state = "COMPLETED");
  const SlurmJob* job(int64_t id) const;  // null if no longer listed

  // --- faults ---
  void set_unreachable(bool on) { unreachable_ = on; }    // every call throws Unreachable
  void set_auth_failure(bool on) { auth_failure_ = on; }  // every call throws Auth
  void set_operator(bool on) { operator_ = on; }          // check_operator_rights throws if false
  // The next call of `command` ("place", "release", "hold", "requeue_hold", "cancel", "submit",
  // "jobs", "nodes", "check_operator_rights") throws a SlurmError of `kind`.
  void fail_next(const std::string& command, SlurmError::Kind kind = SlurmError::Kind::Command);

  // --- the clock ---
  double now_s() const override { return now_s_; }
  void sleep_s(double seconds) override { advance(seconds); }
  // Moves the clock on and runs one scheduler tick: jobs whose run time is over complete, then
  // released jobs start where they were placed.
  void advance(double seconds);
  double min_job_age_s = 300;

  // Every command applied, one line each ("place 3 node1,node2 gpu:2", "release 3", ...).
  const std::vector<std::string>& history() const { return history_; }

  // --- ClusterBackend ---
  std::vector<SlurmJob> jobs() override;
  std::vector<SlurmNode> nodes() override;
  SlurmSnapshot snapshot() override;
  void check_operator_rights() override;
  void place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) override;
  void release(int64_t id) override;
  void hold(int64_t id) override;
  void requeue_hold(int64_t id) override;
  void cancel(int64_t id) override;
  void reconfigure() override;
  int64_t submit(const JobRequest& request) override;
  int64_t commands_run() const override { return commands_run_; }

 private:
  struct Node {
    std::string name;
    int gpus = 0;
    std::string state;  // "" = derived from use
    std::vector<std::string> flags;
    bool refuses_starts = false;
    int leaked_gpus = 0;
  };
  struct Job {
    SlurmJob record;
    std::vector<std::string> required;  // placed on these nodes (empty: Slurm picks)
    std::optional<double> run_s;
    double started_s = 0;
    double ended_s = 0;
    int failures_left = 0;          // set_failing_runs
    double released_s = -1e300;     // last release (set_start_delay)
    double start_after_s = -1e300;  // drawn start delay after the last release (set_latencies)
    double done_at_s = -1;          // its done file was seen; completes at this time (set_latencies)
    std::string done_file;          // first script argument (set_done_file_jobs)
  };

  void enter(const std::string& command);  // counts the call, throws injected faults
  Job& find(int64_t id, const std::string& command);
  // hold / release: a pending job's priority 0 ("JobHeldAdmin") or 1 ("None"), as scontrol does.
  void set_held(const char* command, int64_t id, bool held);
  Node* find_node(const std::string& name);
  int free_gpus(const Node& n) const;
  bool node_usable(const Node& n) const;
  void end(Job& j, const std::string& state, double at_s);
  void requeue(Job& j, bool held, const std::string& reason);
  void tick();
  void spend(const cluster::LatencyDraw& d);  // advance the clock by one draw (nothing if zero)
  struct Settling {
    std::string node;
    int gpus = 0;
    double until_s = 0;
  };

  double now_s_;
  int64_t next_id_ = 1;
  int64_t commands_run_ = 0;
  int reconfigures_ = 0;
  bool unreachable_ = false, auth_failure_ = false, operator_ = true;
  double start_delay_s_ = 0;
  FakeLatencies lat_;
  Rng rng_{1};
  std::vector<Settling> settling_;  // GPUs of requeued jobs not free yet (FakeLatencies::settle)
  std::map<std::string, int> failing_names_;
  bool done_file_jobs_ = false;
  std::map<std::string, SlurmError::Kind> fail_next_;
  std::vector<Node> nodes_;
  std::map<int64_t, Job> jobs_;
  std::vector<std::string> history_;
};

}  // namespace dmlkit::live
