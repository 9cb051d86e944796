// greedy: least-loaded placement (spec A.4 baselines [R]), task by task (trainers, samplers, PS):
// a trainer goes to the machine with the lowest (trainers there + 1) / (GPUs x speed), i.e. the
// fastest free GPU first; a sampler or PS shard to the machine with the lowest share of cores in
// use. Ties go to the lower machine index. It ignores where the data are [A].
#include "core/error.h"
#include "gnn/placements/factories.h"

namespace dmlkit::gnn {
namespace {

class Greedy final : public PlacementPolicy {
 public:
  PlacementOutcome place(const PlacementContext& ctx) override {
    const auto& c = *ctx.cluster;
    const auto& job = *ctx.job;
    Placement p(job.tasks.size(), -1);
    for (size_t k = 0; k < job.tasks.size(); ++k) {
      const int m = least_loaded_machine(c, job, p, static_cast<int>(k));
      if (m < 0)
        throw Error("", 0, "placement", "greedy: no machine can host " + std::string(to_string(job.tasks[k].kind)) +
                                            " " + std::to_string(job.tasks[k].index) + " (infeasible)");
      p[k] = m;
    }
    PlacementOutcome out;
    out.placement = p;
    return out;
  }
};

}  // namespace

PlacementEntry greedy_entry() {
  return {"greedy", "least loaded: trainers to the fastest free GPU, samplers/PS to the least-used cores",
          [](const Knobs&) -> std::unique_ptr<PlacementPolicy> { return std::make_unique<Greedy>(); }};
}

}  // namespace dmlkit::gnn
