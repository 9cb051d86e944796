// The job-metadata convention of live mode: a job tells the controller which application it runs,
// its batch size and (for trace-style jobs) its run time through Slurm's --comment:
//
//   --comment "dmlkit:app=cifar10,batch=2048,gpus=6,duration_s=3600,name=cifar10-0"
//
// Every key is optional. app+batch select a measured speed profile (data/app-profiles); without
// them the job is a fixed-duration job (duration_s, default 3600 s [A]). `gpus` may only lower the
// GPU count the Slurm request gives, never raise it. Unknown keys are ignored (forward compatible);
// a comment not starting with "dmlkit:" carries no metadata.
#pragma once
#include <optional>
#include <string>

namespace dmlkit::live {

struct JobMeta {
  std::string application;  // "" = none
  int batch_size = 0;
  int gpus = 0;           // 0 = as requested from Slurm
  double duration_s = 0;  // 0 = not given
  std::string name;       // workload job name (replay), "" = none
};

// Parses the convention above. Malformed values (e.g. batch=abc) are reported in `problem` and
// that key is ignored: a user's comment must never stop the controller.
JobMeta parse_job_meta(const std::string& comment, std::string* problem = nullptr);
// The comment for `meta` (used by replay).
std::string format_job_meta(const JobMeta& meta);

}  // namespace dmlkit::live
