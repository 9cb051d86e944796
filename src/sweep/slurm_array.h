// Sweeps on Slurm: the unfinished cells go into one job array (`sbatch --array=0-N%P`), one task per
// chunk of cells. Each task runs `dmlkit sweep task DIR --submission FILE` (the same binary, on the
// node), which runs its chunk's cells one after the other with the local runner (retries
// included), writing each cell's output and state file into the shared DIR. The submitting side
// talks to Slurm only through live's SlurmClient (sbatch, squeue --json, scontrol release).
//
// Waiting: every poll reads the array's tasks from squeue and the cells' state from DIR. Tasks that
// enter held (a site's job_submit plugin, as in scripts/slurm-lab.sh, gives every job priority 0
// for the live controller) are released. When no task of the sweep is pending or running any more,
// every cell that is neither finished nor failed was lost (its node failed, the task was cancelled
// or killed): those cells are submitted again as a new, smaller array, up to `resubmits` times.
//
// DIR/slurm/ holds task.sh (the batch script), submission-K.json (job id and the cells of each
// task) and task-JOB_TASK.out (each task's output).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "slurm/cluster_backend.h"
#include "sweep/runner.h"

namespace dmlkit::sweep {

struct SlurmArrayOptions {
  size_t chunk = 1;       // cells per array task
  int max_parallel = 0;   // tasks running at once (%P; 0 = as many as Slurm starts)
  int resubmits = 3;      // new arrays for lost cells before giving up
  double poll_s = 1.0;    // seconds between two looks at squeue and DIR
  double max_wait_s = 0;  // give up waiting after this long (0 = no limit); tasks go on
  std::string job_name = "dmlkit-sweep";
};

struct Submission {
  int index = 0;                                // K of submission-K.json
  int64_t job_id = 0;                           // the array's job id
  std::vector<std::vector<std::string>> tasks;  // cell names of each task
};

// Submits the cells of `cells` that are not finished as one array (none: returns job_id 0). Marks
// them "queued" in their state files.
Submission submit_array(const std::string& dir, const std::vector<Cell>& cells, const RunOptions& run,
                        const SlurmArrayOptions& options, slurm::ClusterBackend& slurm);

// Every submission recorded in DIR/slurm/, in order.
std::vector<Submission> read_submissions(const std::string& dir);

struct ArrayWaitReport {
  RunReport cells;        // done / failed / skipped over the plan
  int resubmitted = 0;    // new arrays submitted for lost cells
  size_t lost_cells = 0;  // cells resubmitted, summed over resubmissions
  bool gave_up = false;   // max_wait_s passed with tasks still active
  size_t unfinished = 0;  // cells neither finished nor failed at the end
};

// Waits until every task of the sweep's submissions has left the queue, releasing held tasks and
// resubmitting lost cells; draws a progress bar (cells done, failed, running, ETA).
ArrayWaitReport wait_array(const std::string& dir, const std::vector<Cell>& cells, const RunOptions& run,
                           const SlurmArrayOptions& options, slurm::ClusterBackend& slurm);

// The array-task side: runs the cells of task `task_index` of `submission_file`, in order.
RunReport run_array_task(const std::string& dir, const std::string& submission_file, int64_t task_index,
                         const RunOptions& run);

// The status of the sweep's array tasks now: job id -> counts of tasks per Slurm state.
struct TaskCounts {
  int64_t job_id = 0;
  size_t pending = 0, running = 0, held = 0;
};
// With `dir`, a started task whose cells are all finished or failed is not counted: its work is
// done even if Slurm still lists it (e.g. running on a node whose failure it has not noticed yet).
std::vector<TaskCounts> array_task_counts(const std::vector<Submission>& subs, slurm::ClusterBackend& slurm,
                                          const std::string& dir = "");

}  // namespace dmlkit::sweep
