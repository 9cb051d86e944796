// colocate: DistDGL's default placement (spec A.4 baselines [R]; DistDGL's launch script starts
// the trainers and samplers of partition q on the machine of q's graph-store server). When the
// store machine cannot host a task (no free GPU, cores or memory: the limited-resource setting of
// the TNET version), the task goes to the least-loaded machine that can [A: DistDGL itself would
// not start; some fallback is needed to compare]. PS shards go to the store machines in turn.
#include "core/error.h"
#include "gnn/placements/factories.h"

namespace dmlkit::gnn {
namespace {

class Colocate final : public PlacementPolicy {
 public:
  PlacementOutcome place(const PlacementContext& ctx) override {
    const auto& c = *ctx.cluster;
    const auto& job = *ctx.job;
    Placement p(job.tasks.size(), -1);
    // First every task that fits on its home machine, then the others on the least-loaded
    // machines (so a fallback never takes the GPU of a partition that could be co-located).
    auto home = [&](const PlacedTask& t) {
      return t.partition >= 0 ? c.store_machine[t.partition] : c.store_machine[t.index % c.store_machine.size()];
    };
    for (size_t k = 0; k < job.tasks.size(); ++k)
      if (fits(c, job, p, static_cast<int>(k), home(job.tasks[k]))) p[k] = home(job.tasks[k]);
    for (size_t k = 0; k < job.tasks.size(); ++k) {
      if (p[k] >= 0) continue;
      const auto& t = job.tasks[k];
      const int m = least_loaded_machine(c, job, p, static_cast<int>(k));
      if (m < 0)
        throw Error("", 0, "placement", "colocate: no machine can host " + std::string(to_string(t.kind)) + " " +
                                            std::to_string(t.index) + " (infeasible)");
      p[k] = m;
    }
    PlacementOutcome out;
    out.placement = p;
    return out;
  }
};

}  // namespace

PlacementEntry colocate_entry() {
  return {"colocate", "DistDGL default: trainers and samplers on their partition's store machine (least-loaded fallback)",
          [](const Knobs&) -> std::unique_ptr<PlacementPolicy> { return std::make_unique<Colocate>(); }};
}

}  // namespace dmlkit::gnn
