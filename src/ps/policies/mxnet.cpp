// mxnet: MXNet kvstore's default key assignment (apache/mxnet src/kvstore/kvstore_dist.h,
// EncodeDefaultKey; spec comm-and-ps.md 3.3). Key k (gradient tensors numbered in forward order,
// the order a model declares its parameters [A]) smaller than MXNET_KVSTORE_BIGARRAY_BOUND
// elements of 4 bytes goes whole to server (k * 9973) mod n; a bigger one is cut into n
// contiguous near-equal parts, part i on server i. The rule itself is core/param_assignment.h
// (shared with the cluster level's Optimus model). Static: never re-plans.
#include "core/param_assignment.h"
#include "ps/policies/factories.h"

namespace dmlkit::ps {
namespace {

class Mxnet final : public AssignmentPolicy {
 public:
  explicit Mxnet(double bound_elems) : bound_(bound_elems) {}
  Placement initial(const PsContext& ctx) override {
    return placement_of(
        assign_param_blocks(tensor_bytes(*ctx.workload), ctx.servers, ParamAssignmentRule::Mxnet, bound_));
  }

 private:
  double bound_;
};

std::unique_ptr<AssignmentPolicy> make(const Knobs& k) {
  return std::make_unique<Mxnet>(static_cast<double>(k.get_int("mxnet.bigarray_bound")));
}

}  // namespace

AssignmentEntry mxnet_entry() {
  return {"mxnet",
          "MXNet default: key*9973 mod n, arrays >= bigarray_bound elements split over all servers",
          make,
          {knob_int("mxnet.bigarray_bound", 1000000, "MXNET_KVSTORE_BIGARRAY_BOUND, elements of 4 bytes").at_least(1)}};
}

}  // namespace dmlkit::ps
