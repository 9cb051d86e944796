// `lb`: load balancing, the placement of Mesos and Kubernetes as Harmony's baseline (Bao, Peng, Wu,
// INFOCOM'19, second-pass.md 3.2/3.5: "Load Balancing (LB)"). Placement only: each new job, with
// the user's (PS, worker) counts, is placed once, task by task, each task on the least-loaded
// server where it fits. Assumed [A]: load = sum over the server's resources (CPU, GPU, memory,
// reserved bandwidth) of used / capacity (ps_pool.h); ties: lowest server id; tasks alternate PS and
// worker in the request's proportion; jobs that do not fit wait (placement_policy.h).
#include "cluster/policies/factories.h"
#include "cluster/policies/placement/placement_policy.h"

namespace dmlkit::cluster {

namespace {
class LoadBalancing final : public GreedyTaskPlacement {
 protected:
  Score score(const PlacementState& state, int /*i*/, TaskRole /*role*/, int server) const override {
    return {server_load(state, server), 0};
  }
};
}  // namespace

PolicyEntry lb_entry() {
  return {"lb",
          "Harmony baseline: load balancing, each task of a new job on the least-loaded server (placement only, "
          "user's PS/worker counts)",
          [](const PolicyOptions&, const Knobs&) -> std::unique_ptr<Policy> { return std::make_unique<LoadBalancing>(); },
          {},
          {.gpu_jobs = false, .ps_jobs = true}};
}

}  // namespace dmlkit::cluster
