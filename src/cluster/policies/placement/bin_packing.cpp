// `bin-packing`: multi-resource bin packing, the "packing" placement Harmony compares against and
// explores with (Bao, Peng, Wu, INFOCOM'19, second-pass.md 3.2/3.3: "bin packing (server with the
// least remaining capacity)"). Placement only: each new job, with the user's (PS, worker) counts,
// is placed once, task by task, each task on the server with the least remaining capacity where it
// fits. Assumed [A]: remaining capacity = sum over resources (CPU, GPU, memory, reserved bandwidth)
// of free / capacity; ties: lowest server id; tasks alternate PS and worker in the request's
// proportion; jobs that do not fit wait (placement_policy.h).
#include "cluster/policies/factories.h"
#include "cluster/policies/placement/placement_policy.h"

namespace dmlkit::cluster {

namespace {
class BinPacking final : public GreedyTaskPlacement {
 protected:
  Score score(const PlacementState& state, int /*i*/, TaskRole /*role*/, int server) const override {
    return {server_remaining(state, server), 0};
  }
};
}  // namespace

PolicyEntry bin_packing_entry() {
  return {"bin-packing",
          "Harmony baseline: bin packing, each task of a new job on the fitting server with the least remaining "
          "capacity (placement only, user's PS/worker counts)",
          [](const PolicyOptions&, const Knobs&) -> std::unique_ptr<Policy> { return std::make_unique<BinPacking>(); },
          {},
          {.gpu_jobs = false, .ps_jobs = true}};
}

}  // namespace dmlkit::cluster
