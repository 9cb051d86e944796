// The Slurm client of the live controller: runs Slurm's own command-line tools (squeue, sinfo,
// scontrol, sbatch, scancel) as subprocesses with an argument vector and a timeout -- never a
// shell, never a string from a job -- and classifies failures so the controller can tell "slurmctld
// unreachable: wait and retry" from "cannot authenticate: refuse to run".
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/process.h"
#include "live/slurm_types.h"

namespace dmlkit::live {

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

// Classifies a failed Slurm command by its exit and stderr.
SlurmError::Kind classify_slurm_failure(const ProcessResult& r);

struct SlurmClientOptions {
  std::string slurm_conf;  // SLURM_CONF for every command ("" = Slurm's default)
  double timeout_s = 8.0;  // per command
  std::string bin_dir;     // folder of the Slurm tools ("" = PATH)
};

// One poll of the cluster.
struct SlurmSnapshot {
  std::vector<SlurmJob> jobs;
  std::vector<SlurmNode> nodes;
};

class SlurmClient {
 public:
  explicit SlurmClient(SlurmClientOptions options);

  std::vector<SlurmJob> jobs() const;      // squeue --json (every job; filter client-side)
  std::vector<SlurmNode> nodes() const;    // sinfo --json
  SlurmSnapshot snapshot() const;          // both
  std::string show_job(int64_t id) const;  // scontrol show job -o -d ID (one line)
  std::string show_config() const;         // scontrol show config

  // Decisions (operator rights needed for other users' jobs).
  void place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node) const;
  void release(int64_t id) const;
  void hold(int64_t id) const;
  void requeue_hold(int64_t id) const;
  void cancel(int64_t id) const;

  // Submits a batch script held (sbatch -H --parsable); returns the job id. `args` are sbatch
  // options placed before the script path; `script_args` after it.
  int64_t submit(const std::vector<std::string>& args, const std::string& script,
                 const std::vector<std::string>& script_args) const;

  const SlurmClientOptions& options() const { return options_; }
  // Number of Slurm commands run so far (for overhead accounting).
  int64_t commands_run() const { return commands_run_; }

 private:
  ProcessResult run(std::vector<std::string> argv) const;
  ProcessResult run_checked(std::vector<std::string> argv) const;

  SlurmClientOptions options_;
  mutable int64_t commands_run_ = 0;
};

}  // namespace dmlkit::live
