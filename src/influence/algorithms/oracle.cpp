// Oracle: the reference for regret. It knows the current network (topology and probabilities)
// at every step and runs IMM (Tang, Shi, Xiao, SIGMOD 2015; see imm.h), a (1 - 1/e - epsilon)
// approximation of the best seed set for that step's expected spread.
// Assumption [A]: accuracy epsilon = --oracle-epsilon (default 0.5 in experiments, to keep 100
// steps x several runs affordable; the benchmark uses 0.1).
#include "influence/algorithms/factories.h"
#include "influence/imm.h"

namespace dmlkit::influence {
namespace {

class Oracle : public Algorithm {
 public:
  explicit Oracle(const AlgorithmOptions& o) {
    options_.epsilon = o.oracle_epsilon;
    options_.max_rr_sets = o.max_rr_sets;
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

std::unique_ptr<Algorithm> make_oracle(const AlgorithmOptions& o) { return std::make_unique<Oracle>(o); }

}  // namespace dmlkit::influence
