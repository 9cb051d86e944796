// Static greedy: an offline influence-maximization method designed for a static network (the
// "stationary method" the RSB paper compares against, spec C.5). At the first step it sees the
// network (topology and probabilities as first observed) and runs IMM (Tang et al., SIGMOD 2015;
// see imm.h) once; it never updates afterwards.
// Assumptions [A]: IMM accuracy epsilon = static-greedy.epsilon (--static-epsilon, 0.1); it ranks 2k nodes so that when
// a chosen node is absent at a later step (node churn) the next-ranked present nodes replace it; if fewer than k ranked
// nodes are present, the rest is filled uniformly at random.
#include <algorithm>

#include "influence/algorithms/factories.h"
#include "influence/imm.h"

namespace dmlkit::influence {
namespace {

class StaticGreedy : public Algorithm {
 public:
  explicit StaticGreedy(const Knobs& k) {
    options_.epsilon = k.get_double("static-greedy.epsilon");
    options_.max_rr_sets = static_cast<size_t>(k.get_int("imm.max-rr-sets"));
  }
  std::string name() const override { return "static-greedy"; }
  NetworkAccess access() const override { return NetworkAccess::FirstStep; }
  void reset(uint32_t num_nodes, int k) override {
    ranked_.clear();
    taken_.assign(num_nodes, 0);
    k_ = k;
  }
  void select(const StepInput& in, Rng& rng, std::vector<NodeId>& seeds) override {
    if (in.network != nullptr && ranked_.empty())
      ranked_ = imm(*in.network, *in.present_nodes, 2 * k_, options_, rng).seeds;
    const auto& present = *in.node_present;
    for (NodeId v : ranked_) {
      if (static_cast<int>(seeds.size()) == in.k) break;
      if (present[v]) seeds.push_back(v);
    }
    for (NodeId v : seeds) taken_[v] = 1;
    const auto& nodes = *in.present_nodes;
    while (static_cast<int>(seeds.size()) < in.k) {
      const NodeId v = nodes[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(nodes.size()) - 1))];
      if (taken_[v]) continue;
      taken_[v] = 1;
      seeds.push_back(v);
    }
    for (NodeId v : seeds) taken_[v] = 0;
  }

 private:
  ImmOptions options_;
  std::vector<NodeId> ranked_;
  std::vector<uint8_t> taken_;
  int k_ = 0;
};

}  // namespace

AlgorithmEntry static_greedy_entry() {
  return {"static-greedy",
          "IMM on the network as first observed, never updated",
          [](const Knobs& k) -> std::unique_ptr<Algorithm> { return std::make_unique<StaticGreedy>(k); },
          {knob_double("static-greedy.epsilon", 0.1, "IMM accuracy of the one-off computation").range(0, 1, true, true),
           imm_max_rr_sets_knob()}};
}

}  // namespace dmlkit::influence
