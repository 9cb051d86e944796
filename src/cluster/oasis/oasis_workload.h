// Workloads of the OASiS model: jobs drawn from parameter ranges (spec 5.6, all [A]/[P] and every
// one a field of the experiment file), arrivals from the Google pattern DL2 ships or a Poisson
// process, the number of jobs scaled so that the offered work is a target load of the worker pool.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/oasis/oasis_cluster.h"
#include "cluster/oasis/oasis_job.h"

namespace dmlkit::cluster::oasis {

struct Range {
  double lo = 0, hi = 0;
};

struct OasisWorkloadSpec {
  double slot_s = 600;                 // spec 5.6: 10-minute slots
  Range epochs{50, 200};               // E_i
  Range chunks{5, 50};                 // N_i (integer)
  Range minibatches{10, 100};          // M_i
  Range per_worker_slots{2, 50};       // D_i / N_i: sets tau_i (spec 5.6)
  Range model_size_mb{10, 200};        // e_i [A]
  Range workers_per_ps{2, 8};          // gamma_i (integer)
  ResourceVec worker_lo{1, 2, 8, 0.1}, worker_hi{4, 8, 32, 1};   // alpha_i: (GPU integer, CPU, GB, Gbps)
  ResourceVec ps_lo{0, 2, 8, 0.5}, ps_hi{0, 8, 32, 2};           // beta_i
  UtilityKind utility = UtilityKind::Sigmoid;
  Range priority{1, 100};              // gamma1
  Range decay{4, 6};                   // gamma2
  Range target_slots{1, 15};           // gamma3
  // "fastest": the target is gamma3 slots after the job's fastest possible completion
  // ceil(D_i / N_i) [A]; "arrival": gamma3 slots after arrival (as the spec's ranges read).
  std::string target_from = "fastest";
  // Arrivals: "google" (slot weights from DL2's Google pattern, cyclic) or "poisson" (flat).
  std::string arrivals = "google";
  int google_pattern_max = 30;         // which row of google_arrival_patterns.csv
  int arrival_slots = 250;             // arrivals fall in slots [0, arrival_slots)
  // Offered load: sum over jobs of D_i x (dominant share of one worker on a worker server) divided
  // by (worker servers x arrival_slots). The number of jobs follows from it.
  double load = 1.0;
  double user_worker_fraction = 0.5;   // baselines' fixed request: ceil(N_i x this) workers (spec 5.6)
};

// Draws the workload of `seed` for `cluster` (its worker pool defines the load). Deterministic.
// `data_dir` holds dl2-measurements/google_arrival_patterns.csv. Throws Error on bad values.
std::vector<OasisJob> oasis_workload(const OasisWorkloadSpec& spec, const OasisCluster& cluster, uint64_t seed,
                                     const std::string& data_dir);

// Throws Error(path, line, field, ...) on ranges that cannot produce a valid job (lo > hi, negative
// demands, an increasing utility, ...).
void check_workload_spec(const OasisWorkloadSpec& spec, int horizon_slots, const std::string& path, long line);

}  // namespace dmlkit::cluster::oasis
