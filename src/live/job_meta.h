// The job-metadata convention of live mode: a job tells the controller which application it runs,
// its batch size and (for trace-style jobs) its run time through Slurm's --comment:
//
//   --comment "dmlkit:app=cifar10,batch=2048,gpus=6,duration_s=3600,name=cifar10-0"
//
// Every key is optional. app+batch select a measured speed profile (data/app-profiles); without
// them the job is a fixed-duration job (duration_s, default 3600 s [A]). `gpus` may only lower the
// GPU count the Slurm request gives, never raise it. Unknown keys are ignored (forward compatible);
// a comment not starting with "dmlkit:" carries no metadata.
//
// A parameter-server job (Harmony's placement policies, Optimus) names its type and the user's
// task counts: "dmlkit:ps_type=ctc,workers=3,ps=2,epochs=40.5,mode=sync,seed=42,name=ctc-3" (type: a
// DL2 or Harmony type, cluster/workload/ps_workload.h ps_job_of_type; seed: its loss-curve noise;
// its GPUs are workers x the type's GPUs per worker, requested from Slurm as usual).
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
  // Parameter-server jobs: type name ("" = not a PS job), the user's counts, epochs, mode, seed.
  std::string ps_type;
  int workers = 0, ps = 0;
  double epochs = 0;
  bool async = false;
  uint64_t seed = 0;
};

// Parses the convention above. Malformed values (e.g. batch=abc) are reported in `problem` and
// that key is ignored: a user's comment must never stop the controller.
JobMeta parse_job_meta(const std::string& comment, std::string* problem = nullptr);
// The comment for `meta` (used by replay).
std::string format_job_meta(const JobMeta& meta);

}  // namespace dmlkit::live
