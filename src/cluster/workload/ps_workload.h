// Workloads of parameter-server jobs: DL2's trace generator (job types uniform over the eight,
// epochs = type fraction x MAX_NUM_EPOCHS, arrivals from the Google pattern, constant per slot,
// Poisson, or uniform in a window as the Optimus prototype's generator) and a CSV reader.
// See docs/optimus.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/model/job.h"
#include "cluster/model/ps_job.h"

namespace dmlkit::cluster {

struct PsWorkloadSpec {
  int num_jobs = 60;
  // google: slot t gets min(max, pattern[(t + offset) mod len]) jobs, offset ~ U{0..4} (DL2);
  // uniform: max_arrivals_per_slot every slot (DL2 "Uniform"); poisson: Poisson(max) per slot;
  // window: each job's arrival slot uniform in [0, window_slots) (Optimus prototype).
  std::string arrivals = "google";
  int max_arrivals_per_slot = 3;
  int window_slots = 20;
  double slot_s = 1200;
  double max_num_epochs = 30000;
  double epoch_jitter = 0.0;       // epochs scaled by 1 + U(-jitter, jitter)
  // dl2: DL2/Optimus' eight types (ps_job.h); harmony: Harmony's eight (harmony_job.h), with their
  // own demands (`demands` is then not read) and the epochs of their measured basis type.
  std::string catalogue = "dl2";
  std::vector<std::string> types;  // empty: all eight of the catalogue, uniformly
  std::string demands = "dl2";     // dl2 (CPU/GPU slots) | testbed (Optimus prototype)
  int user_workers_min = 1;        // user's (p, w) for baselines [A]: w ~ U{min..max},
  int user_workers_max = 4;        // p = max(1, round(w * ps_per_worker))
  double user_ps_per_worker = 1.0;
  double async_fraction = 0.0;          // share of asynchronous jobs
  double loss_noise_sd = 0.01;          // validation-loss noise
  double convergence_threshold = 0.05;  // Optimus' rule the loss curves are built for
};

// Throws Error on bad values (unknown type, arrival pattern or demand set, ...).
Workload ps_workload(const PsWorkloadSpec& spec, uint64_t seed, const std::string& data_dir);

// The per-slot arrival counts of DL2's Google pattern for `max_per_slot` (a row of
// data_dir/dl2-measurements/google_arrival_patterns.csv; also used by the OASiS workloads).
std::vector<int> google_arrival_pattern(const std::string& data_dir, int max_per_slot);

// Fills a job's PS shape from its type (demands by `demands`, epochs, loss curve).
void fill_ps_job(Job& job, int type, double epochs, int user_ps, int user_workers, PsTrainingMode mode,
                 const std::string& demands, double loss_noise_sd, double threshold, uint64_t seed);

// Fills a Harmony job's PS shape (cluster/model/harmony_job.h): its basis type (speed, epoch size,
// loss curve as fill_ps_job), the Harmony type's demands, epochs and the user's counts.
void fill_harmony_job(Job& job, int harmony_type, double epochs, int user_ps, int user_workers, PsTrainingMode mode,
                      double loss_noise_sd, double threshold, uint64_t seed);

// CSV of PS jobs: name,time,type,epochs,ps,workers[,mode][,worker_cpus,worker_gpus,worker_mem_gb,
// worker_net_gbps,ps_cpus,ps_mem_gb,ps_net_gbps] (missing demand columns: the testbed demands of
// the type). `type` is a DL2 type or a Harmony-only type (alexnet, ctc: a Harmony job with that
// type's demands). Recognised by load_workload() from its header.
bool is_ps_workload_header(const std::vector<std::string>& header);
Workload load_ps_workload(const std::string& path);

}  // namespace dmlkit::cluster
