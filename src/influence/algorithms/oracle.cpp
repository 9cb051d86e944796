// Oracle: the reference for regret. It knows the current network (topology and probabilities)
// at every step and runs IMM (Tang, Shi, Xiao, SIGMOD 2015; see imm.h), a (1 - 1/e - epsilon)
// approximation of the best seed set for that step's expected spread.
// Assumption [A]: accuracy epsilon = oracle.epsilon (--oracle-epsilon; default 0.5 in experiments, to keep 100
// steps x several runs affordable; the benchmark uses 0.1).
#include "influence/algorithms/factories.h"
#include "influence/imm.h"

namespace dmlkit::influence {
namespace {

class Oracle : public Algorithm {
 public:
  explicit Oracle(const Knobs& k) {
    options_.epsilon = k.get_double("oracle.epsilon");
    options_.max_rr_sets = static_cast<size_t>(k.get_int("imm.max-rr-sets"));
  }
  std::string name() const override { return "oracle"; }
  NetworkAccess access() const override { return NetworkAccess::EveryStep; }
  void reset(uint32_t, int) override {}
  void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) override {
    const ImmResult r = imm(*in.network, *in.present_nodes, in.k, options_, rng);
    seeds.insert(seeds.end(), r.seeds.begin(), r.seeds.end());
  }

 private:
  ImmOptions options_;
};

}  // namespace

AlgorithmEntry oracle_entry() {
  return {"oracle",
          "IMM on the current network every step (knows topology and probabilities)",
          [](const Knobs& k) -> std::unique_ptr<Algorithm> { return std::make_unique<Oracle>(k); },
          {knob_double("oracle.epsilon", 0.5, "IMM accuracy per step (runtime budget)").range(0, 1, true, true),
           imm_max_rr_sets_knob()}};
}

}  // namespace dmlkit::influence
