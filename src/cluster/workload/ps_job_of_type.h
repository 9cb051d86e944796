// A parameter-server job from its type's name (defined in ps_workload.cpp, beside the CSV reader
// that uses it): what a PS workload CSV row and a live job's comment (live/job_meta.h) both name.
#pragma once
#include <cstdint>
#include <string>

#include "cluster/model/job.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

// A PS job of a DL2 type or a Harmony type named `type_name` (as a CSV row: the type's demands,
// noise 0.01, Optimus' threshold 0.05), or throws Error naming the known types.
Job ps_job_of_type(const std::string& type_name, double epochs, int user_ps, int user_workers, PsTrainingMode mode,
                   uint64_t seed);

}  // namespace dmlkit::cluster
