// Which part of a cluster `cluster serve` manages (--partition, --account, --user). A job outside
// the scope is never touched (never held, placed, released or requeued) and never shown to the
// policy; its running allocations only take GPUs away from the nodes the policy sees. With
// partitions given, the policy sees only their nodes. Empty lists mean "any".
#pragma once
#include <string>
#include <vector>

#include "live/slurm_names.h"

namespace dmlkit::live {

struct JobScope {
  std::vector<std::string> partitions;
  std::vector<std::string> accounts;
  std::vector<std::string> users;

  bool everything() const { return partitions.empty() && accounts.empty() && users.empty(); }
  // The job's account and user are listed (when lists are given) and every partition it may run
  // in is one of ours: a job submitted to "a,b" is managed only if both a and b are.
  bool manages(const SlurmJob& job) const;
  // The node is in one of the partitions (any node when no partition is given).
  bool covers(const SlurmNode& node) const;
  // "partition gpu-a, user alice" or "every job" (for the log).
  std::string describe() const;
};

// Throws Error naming `option` if a name is empty or not a plain Slurm name (letters, digits, - _ .).
void check_scope_names(const std::string& option, const std::vector<std::string>& names);

}  // namespace dmlkit::live
