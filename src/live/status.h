// What a running (or stopped) live controller is doing, read from its state file only: the jobs
// it manages, where each runs or was placed, and when it last polled Slurm and decided. Reading
// never contacts Slurm, so `dmlkit cluster status --slurm` works beside a running `serve`.
#pragma once
#include <string>
#include <vector>

namespace dmlkit::live {

struct LiveJobStatus {
  long long slurm_id = 0;
  std::string name;
  int gpus = 0;            // what the policy is shown
  int requested_gpus = 0;  // the user's request (cap)
  std::string status;      // running | placed (released, not started yet) | waiting
  std::string placement;   // "node1:4,node2:4" for running / placed
  double attained_gpu_s = 0;
  int preemptions = 0;
  int retries = 0;  // times it failed on its own and was requeued (--max-retries)
};

// A job the controller gave up on (failed on its own more than --max-retries times).
struct LiveFailedJob {
  long long slurm_id = 0;
  std::string name;
  std::string state;  // FAILED, OUT_OF_MEMORY
  int retries = 0;
};

struct LiveStatus {
  std::string state_path;
  std::string policy;
  double last_poll_wall_s = 0;      // seconds since the epoch
  double last_decision_wall_s = 0;  // 0: none yet
  double stopped_wall_s = 0;        // when it stopped cleanly (SIGTERM, --max-wall); 0: running or killed
  int finished_jobs = 0;
  std::vector<LiveJobStatus> jobs;  // by Slurm id
  std::vector<LiveFailedJob> failed;  // in the order they were given up
};

// Throws Error naming the file (and the field) if it is missing or not a controller state file.
LiveStatus read_live_status(const std::string& state_path);

}  // namespace dmlkit::live
