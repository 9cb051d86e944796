// paa: Optimus' parameter assignment algorithm (Peng et al., EuroSys'18), the one the cluster
// level already uses for its PS-balance factor -- the same code, core/param_assignment.h (best fit
// descending against avg = ceil(total / n), tiny arrays by request count, big arrays cut to fill
// servers up to avg). paa.balanced selects the project's paa-balanced variant [A] (docs/optimus.md).
// Tensors in forward order [A]. Static.
#include "core/param_assignment.h"
#include "ps/policies/factories.h"

namespace dmlkit::ps {
namespace {

class Paa final : public AssignmentPolicy {
 public:
  explicit Paa(bool balanced) : balanced_(balanced) {}
  Placement initial(const PsContext& ctx) override {
    return placement_of(assign_param_blocks(tensor_bytes(*ctx.workload), ctx.servers,
                                             balanced_ ? ParamAssignmentRule::PaaBalanced : ParamAssignmentRule::Paa));
  }

 private:
  bool balanced_;
};

std::unique_ptr<AssignmentPolicy> make(const Knobs& k) { return std::make_unique<Paa>(k.get_bool("paa.balanced")); }

}  // namespace

AssignmentEntry paa_entry() {
  return {"paa",
          "Optimus PAA (cluster-level code, reused): best fit descending, big arrays cut to the average",
          make,
          {knob_bool("paa.balanced", false, "tiny arrays also kept at or below the average (paa-balanced [A])")}};
}

}  // namespace dmlkit::ps
