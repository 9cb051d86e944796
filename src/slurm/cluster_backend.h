// The one seam between the live controller (and sweeps' job arrays) and the cluster manager they
// drive (as LevelDB's code sees the file system only through its Env). Two implementations:
//   SlurmClient (slurm/slurm_client.h) Slurm's command-line tools (squeue, sinfo, scontrol, sbatch,
//                                       scancel) as subprocesses: what `cluster serve --slurm` and
//                                       `cluster replay --slurm` use;
//   FakeSlurm   (live/fake_slurm.h)     an in-memory cluster with a virtual clock, for unit tests of
//                                       the controller (no daemons, no waiting).
// The vocabulary is Slurm's (jobs enter held, are placed on nodes with a uniform GPU count per node,
// released, requeued held, cancelled; nodes have states such as idle, mixed, down, drained) because
// that is what the controller must express; another manager would map onto it.
// Every call may throw SlurmError: Unreachable (retry later), Auth (refuse to run), Command (this
// request was refused; the controller logs it and goes on).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "slurm/slurm_types.h"

namespace dmlkit::slurm {

class SlurmError : public std::runtime_error {
 public:
  enum class Kind {
    Unreachable,  // slurmctld does not answer (down, timeout, connection refused)
    Auth,         // authentication failed (munge) or permission denied
    Command,      // the command ran and refused (bad job id, invalid request, ...)
  };
  SlurmError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// One poll of the cluster.
struct SlurmSnapshot {
  std::vector<SlurmJob> jobs;
  std::vector<SlurmNode> nodes;
};

// A batch job to submit (it enters held: the controller places and releases it). Paths may be
// relative to our working folder: the Slurm client hands Slurm absolute ones (slurmd would resolve
// them from its own folder).
struct JobRequest {
  std::string name;                      // job name (-J)
  int nodes = 1;                         // node count (-N)
  int gpus_per_node = 0;                 // --gres=gpu:G (0: none)
  std::string comment;                   // job metadata (live/job_meta.h)
  std::string script;                    // batch script (path)
  std::vector<std::string> script_args;  // its arguments
  std::string output = "/dev/null";      // stdout/stderr file (-o; %j = job id)
  std::string work_dir;                  // --chdir ("" = the current folder)
  std::string partition;                 // -p ("" = the default partition)
  std::string account;                   // -A ("" = the user's default)
  // A job array (sweep/slurm_array.h): --array=SPEC, e.g. "0-99%8" or "3,7,12" ("" = one job).
  std::string array;
  bool held = true;  // -H: enters held (the live controller releases it)
};

class ClusterBackend {
 public:
  virtual ~ClusterBackend() = default;

  // --- what the controller reads ---
  virtual std::vector<SlurmJob> jobs() = 0;    // every job the manager still lists
  virtual std::vector<SlurmNode> nodes() = 0;  // every node with its state and GPUs
  virtual SlurmSnapshot snapshot();            // nodes() then jobs()
  // Throws Error (with the fix in its message) if we may not manage other users' jobs.
  virtual void check_operator_rights() = 0;

  // --- what the controller decides ---
  // Pins a held, pending job to exactly `nodes` with `gpus_per_node` GPUs and `cpus_per_node` CPUs
  // on each (the job's own minimum per node: Slurm keeps a job's CPU count when its node count
  // shrinks, so a job once placed on 7 nodes would otherwise ask 7 CPUs on one node).
  virtual void place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) = 0;
  virtual void release(int64_t id) = 0;       // a held job may start (where it was placed)
  virtual void hold(int64_t id) = 0;          // a pending job may not start
  virtual void requeue_hold(int64_t id) = 0;  // a running job stops, frees its GPUs, pending held
  virtual void cancel(int64_t id) = 0;
  // Makes the manager recount its resources from the running jobs (Slurm: `scontrol reconfigure`),
  // the repair of a GRES accounting leak (docs/live-mode.md, Faults). Needs administrator rights.
  virtual void reconfigure() = 0;

  // --- used by replay and tests ---
  virtual int64_t submit(const JobRequest& request) = 0;  // returns the job id; the job is held
  // Calls made to the manager so far (overhead accounting per round).
  virtual int64_t commands_run() const = 0;

  // The clock the controller runs on: wall seconds since the epoch, and waiting. The real backend
  // uses the system clock; the fake a virtual one that sleeping advances.
  virtual double now_s() const;
  virtual void sleep_s(double seconds);
};

}  // namespace dmlkit::slurm
