// round-robin: tensor k whole on server k mod n (TensorFlow's default variable placement, the
// pain point of tensorflow/tensorflow#24953; the RoundRobinAssignPSKVs baseline of the elastic-PS
// prototype pengyanghua/mxnet src/kvstore/kvstore_dist_scheduler.h counts keys the same way).
// Tensors in forward order [A]; no big-array split. Static.
#include "core/param_assignment.h"
#include "ps/policies/factories.h"

namespace dmlkit::ps {
namespace {

class RoundRobin final : public AssignmentPolicy {
 public:
  Placement initial(const PsContext& ctx) override {
    std::vector<double> sizes;
    for (const auto& t : ctx.workload->tensors) sizes.push_back(t.bytes);
    const auto a = assign_param_blocks(sizes, ctx.servers, ParamAssignmentRule::RoundRobin);
    Placement p;
    for (const auto& pieces : a.pieces) p.tensor_pieces.push_back({{pieces.at(0).server, pieces.at(0).bytes}});
    return p;
  }
};

std::unique_ptr<AssignmentPolicy> make(const Knobs&) { return std::make_unique<RoundRobin>(); }

}  // namespace

AssignmentEntry round_robin_entry() {
  return {"round-robin", "TensorFlow default: tensor k on server k mod n, never split", make};
}

}  // namespace dmlkit::ps
