// Replay of a workload on a live Slurm cluster, and its comparison with the simulator.
//
// The replay driver submits each workload job at its arrival time x time_scale (wall seconds) as a
// real batch job (sbatch, held) whose GPU request is the job's, and runs the live Controller with
// the chosen policy. A job's run time follows the same speed model the simulator uses: the driver
// polls Slurm, and while a job is RUNNING it advances that job's JobProgress (make_job_progress)
// on the placement Slurm actually gave it -- restart delay charged after every (re)start, as in the
// simulator -- at 1/time_scale model seconds per wall second. When the model says the work is
// done, the driver creates the job's "done" file; the batch script (which only waits for that
// file) then exits 0 and Slurm records the job COMPLETED. Measured JCT = (COMPLETED observed -
// scheduled arrival) / time_scale, in model seconds, so Slurm's start latency, the controller's
// round timing and the poll interval all show up in the gap to the simulator's JCT.
#pragma once
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "cluster/model/job.h"
#include "cluster/sim/calibration.h"
#include "cluster/sim/simulator.h"
#include "live/controller.h"
#include "live/slurm_names.h"

namespace dmlkit::live {

struct ReplayOptions {
  std::string workload = "pollux-6";  // bundled name or path
  std::string policy = "tiresias";
  cluster::PolicyOptions policy_options;
  int max_jobs = 0;                                   // first N jobs by arrival (0 = all)
  double time_scale = 0.01;                           // wall seconds per model second
  double round_s = 60;                                // model seconds between rounds (simulator's default)
  double restart_delay_s = 30;                        // model seconds, charged at every (re)start (as the simulator)
  double poll_s = 0.1;                                // wall seconds between polls
  double max_wall_s = 0;                              // give up after this many wall seconds (0 = automatic)
  double start_timeout_s = 60;                        // ControllerOptions::start_timeout_s (wall seconds)
  bool repair_gres_leaks = true;                      // ControllerOptions::repair_gres_leaks (replays run on labs)
  int max_retries = 0;                                // ControllerOptions::max_retries
  Unexpressible unexpressible = Unexpressible::Wait;  // ControllerOptions::unexpressible
  std::string work_dir;                               // job script, done files, job output, state file
  std::string data_dir;
  std::ostream* log = nullptr;
  // Polled every loop: true stops the replay at once (SIGINT/SIGTERM in the CLI); every job it
  // submitted that has not ended is then cancelled, as on any other end.
  std::function<bool()> interrupted;
};

struct ReplayJob {
  std::string name;
  std::string application;
  int num_gpus = 0;
  double arrival_s = 0;
  int64_t slurm_id = 0;
  double sim_jct_s = -1;   // simulator's prediction (-1: did not finish)
  double real_jct_s = -1;  // measured (-1: did not finish)
  int sim_preemptions = 0;
  int real_restarts = 0;   // times Slurm started it
  std::string real_state;  // Slurm's final state (COMPLETED, FAILED, ...; "" if it did not end)
  // Real timeline: each run Slurm gave the job, in model seconds from the replay's start (end -1:
  // still running when the replay ended) and the GPUs it held.
  struct Run {
    double start_s = 0, end_s = -1;
    int gpus = 0;
  };
  std::vector<Run> real_runs;
  double gap_s() const { return real_jct_s - sim_jct_s; }
};

struct ReplayResult {
  std::vector<ReplayJob> jobs;
  int cluster_nodes = 0;
  int cluster_gpus = 0;
  int dropped = 0;                               // jobs whose request cannot be expressed on this cluster
  bool complete = false;                         // every job finished in both runs
  double sim_avg_jct_s = 0, real_avg_jct_s = 0;  // over jobs finished in both
  double sim_makespan_s = 0, real_makespan_s = 0;
  std::vector<RoundStat> rounds;
  std::vector<Decision> decisions;
  std::vector<double> start_latency_s;  // wall seconds from each place/move to RUNNING seen
  // Calibration samples (wall seconds; cluster/sim/calibration.h): scheduled arrival -> the
  // controller first sees the job; placement -> RUNNING for a first start and for a restart;
  // preemption -> job seen stopped; work done -> job seen COMPLETED.
  std::vector<double> arrival_latency_s, first_start_latency_s, restart_latency_s, preemption_latency_s,
      completion_latency_s;
  // Wall seconds of each call to the cluster manager, by kind ("poll", "place", "release", "hold",
  // "requeue", "submit"; live/timed_backend.h).
  std::map<std::string, std::vector<double>> command_latency_s;
  int failed = 0;            // jobs that ended FAILED (or another final state than COMPLETED)
  bool interrupted = false;  // ReplayOptions::interrupted stopped it
  int cancelled = 0;         // jobs it submitted and cancelled at the end (had not ended)
  cluster::SimResult sim;    // the simulator's run (timeline of the report)
};

// The calibration measured by a replay (cluster/sim/calibration.h), with its source filled in.
cluster::Calibration replay_calibration(const ReplayResult& r, const ReplayOptions& o);

// Runs the replay (Slurm must be reachable; the cluster is read from sinfo). Cancels every job it
// submitted before returning, also on error.
ReplayResult run_replay(ClusterBackend& slurm, const ReplayOptions& options);

// The Slurm request for `gpus` GPUs on nodes of `gpus_per_node`: {nodes, GPUs per node} with
// nodes x per-node == gpus, fewest nodes first; {0, 0} if impossible on `max_nodes` nodes.
std::pair<int, int> request_shape(int gpus, int gpus_per_node, int max_nodes);

}  // namespace dmlkit::live
