// The methods compared on the OASiS model (OASiS and its baselines) and their registry. A method
// sees the whole job list (each job's arrival slot tells when it may know it) and returns what it
// ran: per job, admission, the per-slot allocation, completion and utility, and the slot ledger.
// `dmlkit cluster policies --engine oasis -v` lists the registry (docs/oasis.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster/oasis/oasis_cluster.h"
#include "cluster/oasis/oasis_workload.h"
#include "core/knobs.h"
#include "core/registry.h"

namespace dmlkit::cluster::oasis {

struct OasisProblem {
  const OasisCluster* cluster = nullptr;
  const std::vector<OasisJob>* jobs = nullptr;     // in arrival order, id = index
  const OasisWorkloadSpec* workload = nullptr;     // the ranges the jobs were drawn from
};

struct JobOutcome {
  bool admitted = false;
  int completion_slot = -1;   // -1: not completed within the horizon
  double utility = 0;         // f(completion - arrival + 1) if completed, else 0
  long work_done = 0;         // worker-slots
  std::vector<SlotAllocation> schedule;
};

struct OasisRun {
  explicit OasisRun(const OasisCluster& cluster) : ledger(cluster) {}
  std::vector<JobOutcome> jobs;
  SlotLedger ledger;
  std::vector<std::string> log;  // e.g. the price bounds OASiS used
  double theoretical_ratio = 0;  // OASiS: 2 * alpha (0 for the others)
};

class OasisMethod {
 public:
  virtual ~OasisMethod() = default;
  virtual OasisRun run(const OasisProblem& problem) = 0;
};

struct OasisMethodOptions {
  uint64_t seed = 1;
};
using OasisMethodFactory = std::unique_ptr<OasisMethod> (*)(const OasisMethodOptions&, const Knobs&);
struct OasisMethodTraits {
  bool admission_control = false;  // may reject jobs (others admit every job)
};
using OasisMethodEntry = RegistryEntry<OasisMethodFactory, OasisMethodTraits>;
using OasisMethodRegistry = Registry<OasisMethodEntry>;

const OasisMethodRegistry& oasis_method_registry();
// Throws Error on an unknown name or a knob the registry does not declare (as make_policy).
std::unique_ptr<OasisMethod> make_oasis_method(const std::string& name, const KnobValues& params, uint64_t seed);

// Metrics of one run (all scalars): jobs, admitted_jobs, completed_jobs, total_utility,
// worker_gpu_utilization, worker_cpu_utilization, ps_cpu_utilization, max_server_utilization.
struct OasisMetrics {
  int jobs = 0, admitted = 0, completed = 0;
  double total_utility = 0;
  double worker_gpu_utilization = 0, worker_cpu_utilization = 0, ps_cpu_utilization = 0;
  double max_server_utilization = 0;
};
// Also asserts the run's invariants (capacity never exceeded, completed work >= D, at most
// max_workers workers and enough PSs in every slot, nothing before arrival): std::logic_error
// otherwise -- a bug in the method.
OasisMetrics check_and_measure(const OasisProblem& problem, const OasisRun& run);

}  // namespace dmlkit::cluster::oasis
