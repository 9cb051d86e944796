// Placement policies: which machine runs each trainer, sampler and PS shard of the job (graph-store
// servers are fixed). Registry: placement_registry() (registry.cpp); each policy lives in
// placements/<name>.cpp with what it implements and assumes.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/knobs.h"
#include "core/registry.h"
#include "gnn/cluster.h"
#include "gnn/job.h"

namespace dmlkit::gnn {

struct PlacementContext {
  const ClusterSpec* cluster = nullptr;
  const Job* job = nullptr;
  uint64_t seed = 1;
  // The mean iteration time of a placement, measured by simulating a few iterations with the
  // run's scheduler (explore only). Infeasible placements must not be passed.
  std::function<double(const Placement&)> evaluate;
  // Placements a search may start from, by policy name (explore's explore.start).
  std::function<Placement(const std::string&)> place_by;
};

struct PlacementOutcome {
  Placement placement;
  int evaluations = 0;                 // simulated candidates (explore)
  double start_estimate_s = 0;         // evaluated iteration time of the start (explore)
  double best_estimate_s = 0;          // ... of the returned placement (explore)
  std::vector<double> trace_s;         // the evaluated time of every candidate, in order (explore)
  std::vector<double> best_trace_s;    // best so far after every candidate (explore)
  int accepted = 0;                    // accepted moves (explore)
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // Throws Error("...infeasible...") when no feasible placement is found.
  virtual PlacementOutcome place(const PlacementContext& ctx) = 0;
};

using PlacementFactory = std::unique_ptr<PlacementPolicy> (*)(const Knobs& knobs);
using PlacementEntry = RegistryEntry<PlacementFactory>;
using PlacementRegistry = Registry<PlacementEntry>;

const PlacementRegistry& placement_registry();
std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, const KnobValues& params);

// Helpers shared by the policies.
// The least-loaded feasible machine for `task` given the partial placement (-1 = unplaced):
// trainers minimise (trainers there + 1) / (GPUs x speed), others the share of cores in use;
// ties to the lower machine index. -1 if none fits.
int least_loaded_machine(const ClusterSpec& c, const Job& job, const Placement& p, int task);
// Throws Error naming the task when `p` is not feasible.
void require_feasible(const ClusterSpec& c, const Job& job, const Placement& p, const std::string& policy);

}  // namespace dmlkit::gnn
