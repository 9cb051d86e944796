// The job of the OASiS model (Bao, Peng, Wu, Li, INFOCOM 2018; specs/cluster-schedulers.md 5.1
// with second-pass.md 1): an asynchronous parameter-server job with a known amount of work in
// worker-slots, a cap on concurrent workers (one per data chunk), a PS ratio, per-task demands over
// four resources, and a non-increasing utility of its completion time. Time is in slots.
#pragma once
#include <array>
#include <string>
#include <vector>

namespace dmlkit::cluster::oasis {

// The four resource types of the model, in this order everywhere.
inline constexpr int kNumResources = 4;
enum Resource : int { kGpu = 0, kCpu = 1, kMemGb = 2, kNetGbps = 3 };
const char* resource_name(int r);  // "gpu", "cpu", "mem_gb", "net_gbps"
using ResourceVec = std::array<double, kNumResources>;

// The utility of finishing `d` slots after arrival (d = completion slot - arrival slot + 1, so a
// job that runs only in its arrival slot has d = 1) [A].
enum class UtilityKind { Sigmoid, Step, Linear };
struct Utility {
  UtilityKind kind = UtilityKind::Sigmoid;
  double priority = 1;    // gamma1: the value of an immediate completion
  double decay = 5;       // gamma2 (sigmoid only), per slot
  double target_slots = 5;  // gamma3: the sigmoid's midpoint, the step's deadline, linear: half value
  // sigmoid: priority / (1 + exp(decay * (d - target)));
  // step:    priority if d <= target, else 0;
  // linear:  priority * max(0, 1 - d / (2 * target)).
  double value(double duration_slots) const;
};
UtilityKind parse_utility_kind(const std::string& name);  // throws Error naming the valid ones
const char* to_string(UtilityKind kind);

struct OasisJob {
  int id = 0;
  int arrival_slot = 0;
  // Descriptive parameters of spec 5.1 (what the work is derived from).
  double epochs = 0;             // E_i
  int chunks = 0;                // N_i: data chunks, also the cap on concurrent workers
  double minibatches_per_chunk = 0;  // M_i
  double compute_s = 0;          // tau_i: one mini-batch's compute time
  double model_size_mb = 0;      // e_i
  double worker_bw_gbps = 0;     // b_i: push + pull of the model at this bandwidth
  // Work in worker-slots: ceil(E * N * M * (tau + 2 e / b) / slot_s).
  long work_worker_slots = 0;
  int max_workers = 0;           // = chunks
  int workers_per_ps = 1;        // gamma_i: one PS serves at most this many workers
  ResourceVec worker_demand{};   // alpha_i
  ResourceVec ps_demand{};       // beta_i
  Utility utility;
  // The user's fixed request the fifo/drf/rrh/tetris baselines run with (spec 5.6 item 4).
  int user_workers = 1;
  int user_ps = 1;
  // PSs needed by `workers` workers: ceil(workers / workers_per_ps).
  int ps_for(int workers) const { return (workers + workers_per_ps - 1) / workers_per_ps; }
};

// Throws Error(file, line, field, ...) if the job is not usable: a negative or non-finite demand,
// no work, no workers, a utility that increases with the completion time (checked on 1..horizon).
// `where`/`line` name the input the job came from.
void check_job(const OasisJob& job, int horizon_slots, const std::string& where, long line);

}  // namespace dmlkit::cluster::oasis
