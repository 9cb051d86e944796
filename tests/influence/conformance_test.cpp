// Conformance of every registered influence algorithm (influence/registry.cpp): on a small
// network whose node set changes between steps, every step returns exactly k distinct nodes that
// are present, and a rerun with the same seed returns the same seeds. The declared knobs' defaults
// parse, are read by the factory, and a bad value is refused naming the knob. A new algorithm is
// covered by registering it.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "influence/algorithm.h"
#include "influence/generators.h"

namespace dmlkit::influence {
namespace {

std::vector<std::vector<NodeId>> run(const AlgorithmEntry& entry, const Graph& network, uint32_t n, int k) {
  auto alg = make_algorithm(entry.name);
  alg->reset(n, k);
  Rng rng(11);
  std::vector<std::vector<NodeId>> out;
  for (int step = 0; step < 12; ++step) {
    // Node churn: every third node is absent on odd steps.
    std::vector<uint8_t> flags(n, 1);
    std::vector<NodeId> present;
    for (NodeId v = 0; v < n; ++v) {
      if (step % 2 == 1 && v % 3 == 0) flags[v] = 0;
      if (flags[v]) present.push_back(v);
    }
    StepInput in;
    in.step = step;
    in.k = k;
    in.num_nodes = n;
    in.present_nodes = &present;
    in.node_present = &flags;
    const bool sees =
        alg->access() == NetworkAccess::EveryStep || (alg->access() == NetworkAccess::FirstStep && step == 0);
    in.network = sees ? &network : nullptr;
    std::vector<NodeId> seeds;
    alg->select(in, rng, seeds);
    EXPECT_EQ(seeds.size(), static_cast<size_t>(k)) << "step " << step;
    std::set<NodeId> distinct(seeds.begin(), seeds.end());
    EXPECT_EQ(distinct.size(), seeds.size()) << "step " << step;
    for (NodeId s : seeds) EXPECT_TRUE(s < n && flags[s]) << "node " << s << " not present at step " << step;
    std::vector<uint32_t> marginal;
    for (NodeId s : seeds) marginal.push_back(1 + s % 4);
    alg->observe(in, seeds, marginal);
    out.push_back(seeds);
  }
  return out;
}

TEST(AlgorithmConformance, EveryRegisteredAlgorithmPicksKDistinctPresentSeeds) {
  Rng g(3);
  EdgeList edges = preferential_attachment(60, 2, g);
  edges.prob.assign(edges.src.size(), 0.3f);
  const Graph network = Graph::from_edges(edges);
  ASSERT_FALSE(algorithm_registry().entries().empty());
  for (const auto& entry : algorithm_registry().entries()) {
    SCOPED_TRACE(entry.name);
    EXPECT_FALSE(entry.summary.empty());
    EXPECT_EQ(make_algorithm(entry.name)->name(), entry.name);
    const auto a = run(entry, network, edges.num_nodes, 5);
    EXPECT_EQ(a, run(entry, network, edges.num_nodes, 5)) << "deterministic for a seed";
  }
}

TEST(AlgorithmConformance, KnobsParseAndBadValuesAreRefused) {
  for (const auto& entry : algorithm_registry().entries()) {
    SCOPED_TRACE(entry.name);
    KnobValues defaults;
    for (const auto& k : entry.knobs) {
      // A knob is named after its algorithm ("rsb.gamma"), or after IMM for the ones IMM reads.
      EXPECT_TRUE(k.name.rfind(entry.name + ".", 0) == 0 || k.name.rfind("imm.", 0) == 0) << k.name;
      EXPECT_FALSE(k.help.empty()) << k.name;
      EXPECT_NO_THROW(k.check(k.default_value, k.name)) << k.name;
      defaults[k.name] = k.default_value;
    }
    // Every declared knob given at its default: the algorithm builds and reads them.
    EXPECT_EQ(make_algorithm(entry.name, defaults)->name(), entry.name);
    for (const auto& k : entry.knobs) {
      if (k.type != KnobType::Int && k.type != KnobType::Double) continue;
      try {
        make_algorithm(entry.name, {{k.name, "not-a-number"}});
        ADD_FAILURE() << k.name << ": a bad value was accepted";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(k.name), std::string::npos) << e.what();
      }
    }
  }
  try {
    make_algorithm("rsb", {{"rsb.gamma", "1.5"}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--algorithm-param rsb.gamma"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_algorithm("rsb", {{"rsb.typo", "1"}}), Error);
  EXPECT_THROW(check_algorithm_params({{"nope.knob", "1"}}), Error);
}

}  // namespace
}  // namespace dmlkit::influence
