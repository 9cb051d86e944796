// What the live controller reads from Slurm: jobs and nodes as parsed from `squeue --json` and
// `sinfo --json` (Slurm 22.05, OpenAPI data v0.0.38), plus the parsers. Parsing is separate from
// running the commands so it can be tested on recorded output.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dmlkit::slurm {

struct SlurmNodeGpus {
  std::string node;
  int gpus = 0;
};

struct SlurmJob {
  int64_t id = 0;
  std::string name;
  std::string state;   // PENDING, RUNNING, COMPLETED, ...
  std::string reason;  // state_reason (JobHeldUser, BeginTime, Resources, ...)
  std::string comment;
  std::string partition;       // as Slurm lists it: one name, or a comma list if submitted to several
  std::string account;         // "" if none
  std::string user;            // user_name
  int64_t priority = 0;        // 0 = held
  int64_t submit_time = 0;     // epoch seconds
  int node_count = 1;          // requested (pending) or allocated (running) nodes
  int gpus_per_node = 0;       // from tres_per_node "gres:gpu:G" (or "gres:gpu:type:G")
  int gpus_per_job = 0;        // from tres_per_job "gres:gpu:N" (0 if not given)
  int cpus_per_node = 1;       // minimum_cpus_per_node (the job's own request per node; at least 1)
  std::string required_nodes;  // ReqNodeList as Slurm prints it
  int restarts = 0;
  std::vector<SlurmNodeGpus> allocation;  // running: nodes with the GPUs each holds
  // Job arrays: the array's job id and this task's index (-1: not an array task, or the pending
  // record of the tasks not started yet, whose indices are in array_tasks, e.g. "3-99%4").
  int64_t array_job_id = 0;
  int64_t array_task_id = -1;
  std::string array_tasks;
  bool held() const { return priority == 0; }
  bool pending() const { return state == "PENDING"; }
  // RUNNING or CONFIGURING: the job holds its allocation.
  bool active_running() const { return state == "RUNNING" || state == "CONFIGURING"; }
  bool finished() const;  // COMPLETED, CANCELLED, FAILED, TIMEOUT, ... (final states)
  // GPUs the job asks for now (per node x nodes, or per job).
  int requested_gpus() const;
};

struct SlurmNode {
  std::string name;
  std::string state;  // idle, mixed, allocated, down, drained, ... (lowercase)
  std::vector<std::string> flags;
  std::vector<std::string> partitions;
  std::string gpu_type;  // the GRES type ("gpu:a100:4" -> "a100"), "" if untyped
  int gpus = 0;          // configured ("gpu:4")
  int gpus_used = 0;     // "gpu:3" or "gpu:3(IDX:0-2)"
  // Usable for new work: not down, drained, draining, failing, not responding or unknown.
  bool usable() const;
};

// Parsers; throw dmlkit::Error("squeue --json", 0, field, message) on malformed output.
std::vector<SlurmJob> parse_squeue_json(const std::string& text);
std::vector<SlurmNode> parse_sinfo_json(const std::string& text);

// "gpu:3", "gpu:tesla:3", "gres:gpu:3", "gpu:3(IDX:0-2)", "gres/gpu=3" -> 3; 0 if no GPU count.
int parse_gpu_count(const std::string& gres);
// "gpu:a100:4" -> "a100"; "" for an untyped count ("gpu:4") or no GPU entry.
std::string parse_gpu_type(const std::string& gres);
// Expands a Slurm host list: "node[1-3,7],other" -> node1 node2 node3 node7 other.
std::vector<std::string> expand_hostlist(const std::string& list);

}  // namespace dmlkit::slurm
