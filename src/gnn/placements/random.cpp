// random: every task on a uniformly drawn machine among those that can still host it (seeded;
// spec A.4 baselines [R]). Tasks are placed in order: trainers, samplers, PS shards.
#include "core/error.h"
#include "core/rng.h"
#include "gnn/placements/factories.h"

namespace dmlkit::gnn {
namespace {

class RandomPlacement final : public PlacementPolicy {
 public:
  PlacementOutcome place(const PlacementContext& ctx) override {
    const auto& c = *ctx.cluster;
    const auto& job = *ctx.job;
    Rng rng = Rng(ctx.seed).split(31);
    Placement p(job.tasks.size(), -1);
    for (size_t k = 0; k < job.tasks.size(); ++k) {
      std::vector<int> ok;
      for (int m = 0; m < static_cast<int>(c.machines.size()); ++m)
        if (fits(c, job, p, static_cast<int>(k), m)) ok.push_back(m);
      if (ok.empty())
        throw Error("", 0, "placement", "random: no machine can host " + std::string(to_string(job.tasks[k].kind)) +
                                            " " + std::to_string(job.tasks[k].index) + " (infeasible)");
      p[k] = ok[rng.uniform_int(0, static_cast<int64_t>(ok.size()) - 1)];
    }
    PlacementOutcome out;
    out.placement = p;
    return out;
  }
};

}  // namespace

PlacementEntry random_entry() {
  return {"random", "each task on a uniformly drawn machine that can host it (seeded)",
          [](const Knobs&) -> std::unique_ptr<PlacementPolicy> { return std::make_unique<RandomPlacement>(); }};
}

}  // namespace dmlkit::gnn
