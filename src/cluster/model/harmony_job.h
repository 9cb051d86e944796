// Harmony's job model (Bao, Peng, Wu, INFOCOM'19; second-pass.md 3.1) on top of the parameter-server
// job model (ps_job.h): the owner submits a job of one of eight types with its numbers of PSs and
// workers, the per-task demand of a worker and of a PS over K = 4 resource types (CPU cores, GPUs,
// memory, reserved bandwidth) and the total epochs. Placement-only: the scheduler decides where the
// tasks go, never how many (policies/placement/).
//
// The paper's job types are not all in the measured set (data/dl2-measurements holds DL2's eight),
// so each Harmony type takes its speed from a measured "basis" type [A] (docs/harmony.md, "Job
// types"): alexnet -> resnet-50, ctc -> wlm, the other six -> themselves. Its co-location
// behaviour is its own (the interference models key on the Harmony type's name).
#pragma once
#include <string>
#include <vector>

#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

struct HarmonyJobType {
  std::string name;        // alexnet, vgg-16, ...
  std::string basis;       // the measured DL2 type its speed and epoch size come from
  TaskDemand worker;       // [A] per-task demands on the Harmony testbed (docs/harmony.md)
  TaskDemand ps;
  // Total epochs = epoch_fraction x the workload's max_num_epochs [A]: set so that a job of any
  // type trains about 2 hours alone (1-4 workers, the analytic speed model) at max_num_epochs 200;
  // DL2's own fractions would make vgg-16 and seq2seq jobs 50-90 times longer than resnext-110's.
  double epoch_fraction = 0;
  std::string profile;     // one line: why (the paper's observation or our assumption)
};

// The eight types, in the order of the state's one-hot x.
const std::vector<HarmonyJobType>& harmony_job_types();
// Index by name, or -1.
int find_harmony_job_type(const std::string& name);
// "alexnet, vgg-16, ..." for error messages.
std::string harmony_job_type_names();

}  // namespace dmlkit::cluster
