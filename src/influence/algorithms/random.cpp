// Random seeds: the baseline of the RSB paper (spec C.5). k distinct nodes drawn uniformly from
// the nodes present at the step (partial Fisher-Yates on a reused scratch copy). No assumptions.
#include "influence/algorithms/factories.h"

namespace dmlkit::influence {
namespace {

class RandomSeeds : public Algorithm {
 public:
  std::string name() const override { return "random"; }
  void reset(uint32_t, int) override {}
  void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) override {
    scratch_ = *in.present_nodes;
    const auto n = static_cast<int64_t>(scratch_.size());
    for (int64_t i = 0; i < in.k; ++i) {
      const int64_t j = rng.uniform_int(i, n - 1);
      std::swap(scratch_[i], scratch_[j]);
      seeds.push_back(scratch_[i]);
    }
  }

 private:
  std::vector<NodeId> scratch_;
};

}  // namespace

AlgorithmEntry random_entry() {
  return {"random", "k distinct present nodes uniformly at random",
          [](const Knobs&) -> std::unique_ptr<Algorithm> { return std::make_unique<RandomSeeds>(); }};
}

}  // namespace dmlkit::influence
