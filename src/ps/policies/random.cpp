// random: the RandAssignPSKVs baseline of the elastic-PS prototype (pengyanghua/mxnet
// src/kvstore/kvstore_dist_scheduler.h): every PS key -- MXNet's keys, so a big array's n parts
// are separate keys (mxnet.cpp) -- goes to a uniformly random server. The prototype uses rand();
// here the stream is derived from --seed [A], so a run is reproducible. Static.
#include "core/param_assignment.h"
#include "core/rng.h"
#include "ps/policies/factories.h"

namespace dmlkit::ps {
namespace {

class Random final : public AssignmentPolicy {
 public:
  Placement initial(const PsContext& ctx) override {
    const auto a = assign_param_blocks(tensor_bytes(*ctx.workload), ctx.servers, ParamAssignmentRule::Mxnet);
    Rng rng = Rng(ctx.seed).split(0x70735f72616e64ULL);  // "ps_rand"
    Placement p;
    for (const auto& pieces : a.pieces) {
      auto& out = p.tensor_pieces.emplace_back();
      for (const auto& piece : pieces) {
        add_piece(out, static_cast<int>(rng.uniform_int(0, ctx.servers - 1)), piece.bytes);
      }
    }
    return p;
  }
};

std::unique_ptr<AssignmentPolicy> make(const Knobs&) { return std::make_unique<Random>(); }

}  // namespace

AssignmentEntry random_entry() {
  return {"random", "each MXNet key (big arrays already split) on a uniformly random server (--seed)", make};
}

}  // namespace dmlkit::ps
