// The Slurm client, the real ClusterBackend (slurm/cluster_backend.h) of the live controller and of
// sweeps' job arrays: runs Slurm's own command-line tools (squeue, sinfo, scontrol, sbatch, scancel) as subprocesses
// with an argument vector and a timeout -- never a shell, never a string from a job -- and classifies failures so the
// controller can tell "slurmctld unreachable: wait and retry" from "cannot authenticate: refuse to run".
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "slurm/cluster_backend.h"
#include "core/subprocess.h"
#include "slurm/slurm_types.h"

namespace dmlkit::slurm {

// Classifies a failed Slurm command by its exit and stderr.
SlurmError::Kind classify_slurm_failure(const ProcessResult& r);

struct SlurmClientOptions {
  std::string slurm_conf;  // SLURM_CONF for every command ("" = Slurm's default)
  double timeout_s = 8.0;  // per command
  std::string bin_dir;     // folder of the Slurm tools ("" = PATH)
};

// Why `uid` may not manage other users' jobs on a cluster whose `scontrol show config` is `config`
// ("" if it may): without an accounting database only root and SlurmUser may; with one, Slurm
// checks operators and administrators itself at the first update.
std::string operator_rights_problem(const std::string& config, uid_t uid);

class SlurmClient final : public ClusterBackend {
 public:
  explicit SlurmClient(SlurmClientOptions options);

  std::vector<SlurmJob> jobs() override;    // squeue --json (every job; filter client-side)
  std::vector<SlurmNode> nodes() override;  // sinfo --json
  void check_operator_rights() override;    // scontrol show config, our uid
  std::string show_config();                // scontrol show config

  // Decisions (operator rights needed for other users' jobs).
  void place(int64_t id, const std::vector<std::string>& nodes, int gpus_per_node, int cpus_per_node) override;
  void release(int64_t id) override;
  void hold(int64_t id) override;
  void requeue_hold(int64_t id) override;
  void cancel(int64_t id) override;
  void reconfigure() override;

  // sbatch -H --parsable; returns the job id.
  int64_t submit(const JobRequest& request) override;

  const SlurmClientOptions& options() const { return options_; }
  int64_t commands_run() const override { return commands_run_; }

 private:
  ProcessResult run(std::vector<std::string> argv);
  ProcessResult run_checked(std::vector<std::string> argv);

  SlurmClientOptions options_;
  std::atomic<int64_t> commands_run_{0};  // atomic: tests poll from a second thread
};

}  // namespace dmlkit::slurm
