// Test helper: a trace-replay job (WorkKind::FixedDuration) named job-<id>.
#pragma once
#include <string>

#include "cluster/model/job.h"

namespace dmlkit::cluster {

inline Job trace_job(int id, double arrival_s, int gpus, double duration_s) {
  Job j;
  j.id = id;
  j.name = "job-" + std::to_string(id);
  j.arrival_s = arrival_s;
  j.num_gpus = gpus;
  j.duration_s = duration_s;
  j.kind = WorkKind::FixedDuration;
  return j;
}

}  // namespace dmlkit::cluster
