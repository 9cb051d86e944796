// `tetris-align`: the placement half of Tetris (Grandl et al., SIGCOMM'14), as Harmony's baseline
// "Tetris" (Bao, Peng, Wu, INFOCOM'19, second-pass.md 3.5): each task goes to the server whose free
// resources align best with its demand, alignment = sum_r d[r]/C[r] * F[r]/C[r] over CPU, GPU,
// memory and reserved bandwidth (cluster-schedulers spec 6.2). Placement only, with the user's (PS,
// worker) counts; Tetris' SRTF term and fairness knob order jobs, which here arrive in order and are
// never preempted, so they are left out [A] (the full scheduler is `tetris`). Assumed [A]: ties by
// lowest server id; tasks alternate PS and worker in the request's proportion; jobs that do not fit
// wait (placement_policy.h).
#include "cluster/policies/factories.h"
#include "cluster/policies/placement/placement_policy.h"

namespace dmlkit::cluster {

namespace {
class TetrisAlign final : public GreedyTaskPlacement {
 protected:
  Score score(const PlacementState& state, int i, TaskRole role, int server) const override {
    double d[kResources];
    demand_vector(state.demand(i, role), d);
    const PsPool& p = state.pool();
    double align = 0;
    for (int k = 0; k < kResources; ++k) {
      const double c = p.cap(server, k);
      if (c > 0) align += (d[k] / c) * (p.free(server, k) / c);
    }
    return {-align, 0};
  }
};
}  // namespace

PolicyEntry tetris_align_entry() {
  return {"tetris-align",
          "Harmony baseline: Tetris' alignment, each task of a new job on the server whose free resources best "
          "match its demand (placement only, user's PS/worker counts)",
          [](const PolicyOptions&, const Knobs&) -> std::unique_ptr<Policy> { return std::make_unique<TetrisAlign>(); },
          {},
          {.gpu_jobs = false, .ps_jobs = true}};
}

}  // namespace dmlkit::cluster
