// `standalone`: every job runs alone on its servers, Harmony's motivating placement (Bao, Peng,
// Wu, INFOCOM'19, second-pass.md 3.2: "standalone is fastest, but it under-uses resources").
// Placement only, with the user's (PS, worker) counts: a new job's tasks go only to servers that
// hold no other job's task; among those it packs itself on the fewest (a server it already uses
// first, then the one with the least remaining capacity). Assumed [A]: packing within the job
// (its own tasks still share their servers); ties by lowest server id; tasks alternate PS and
// worker in the request's proportion; a job that finds too few empty servers waits.
#include "cluster/policies/factories.h"
#include "cluster/policies/placement/placement_policy.h"

namespace dmlkit::cluster {

namespace {
class Standalone final : public GreedyTaskPlacement {
 protected:
  bool eligible(const PlacementState& state, int i, int server) const override { return !state.others_on(i, server); }
  Score score(const PlacementState& state, int i, TaskRole /*role*/, int server) const override {
    const bool mine = state.workers_on(i, server) + state.ps_on(i, server) > 0;
    return {mine ? 0.0 : 1.0, server_remaining(state, server)};
  }
};
}  // namespace

PolicyEntry standalone_entry() {
  return {"standalone",
          "Harmony baseline: each new job alone on servers no other job uses, packed on the fewest (placement only, "
          "user's PS/worker counts)",
          [](const PolicyOptions&, const Knobs&) -> std::unique_ptr<Policy> { return std::make_unique<Standalone>(); },
          {},
          {.gpu_jobs = false, .ps_jobs = true}};
}

}  // namespace dmlkit::cluster
