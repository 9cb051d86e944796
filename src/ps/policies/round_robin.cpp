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
    return placement_of(assign_param_blocks(tensor_bytes(*ctx.workload), ctx.servers, ParamAssignmentRule::RoundRobin));
  }
};

std::unique_ptr<AssignmentPolicy> make(const Knobs&) { return std::make_unique<RoundRobin>(); }

}  // namespace

AssignmentEntry round_robin_entry() {
  return {"round-robin", "TensorFlow default: tensor k on server k mod n, never split", make};
}

}  // namespace dmlkit::ps
