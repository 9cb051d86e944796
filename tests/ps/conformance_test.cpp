// Every registered assignment policy, on small inputs: its placement holds every byte of every
// tensor on existing servers, the run is deterministic, and the runner's records are consistent.
#include <gtest/gtest.h>

#include "ps/policy.h"
#include "ps/ps_test_util.h"
#include "ps/runner.h"

namespace dmlkit::ps {
namespace {

TEST(PsConformance, EveryPolicyPlacesEveryByte) {
  const auto w = testing::chain({10e6, 3e6, 4e6 * 1.5, 1000, 7, 250e3});
  for (const auto& name : policy_registry().names())
    for (int servers : {1, 2, 3, 5}) {
      auto p = make_policy(name, {});
      PsContext ctx{&w, servers, 4, 1.25e9, 3};
      const auto pl = p->initial(ctx);
      ASSERT_EQ(pl.tensor_pieces.size(), w.tensors.size()) << name;
      for (size_t t = 0; t < w.tensors.size(); ++t) {
        double b = 0;
        for (const auto& piece : pl.tensor_pieces[t]) {
          EXPECT_GE(piece.server, 0) << name;
          EXPECT_LT(piece.server, p->server_hosts(ctx)) << name;
          b += piece.bytes;
        }
        EXPECT_NEAR(b, w.tensors[t].bytes, 1e-9 * w.tensors[t].bytes + 1e-9) << name << " tensor " << t;
      }
    }
}

TEST(PsConformance, EveryPolicyRunsDeterministicallyUnderStragglers) {
  const auto w = testing::chain({8e6, 8e6, 2e6, 1e6});
  const auto s = straggler_preset("rotating", 3, 24);
  PsRunOptions o;
  o.iterations = 24;
  for (const auto& name : policy_registry().names()) {
    const auto a = run_policy(w, testing::net(4, 3), name, {}, s, o);
    const auto b = run_policy(w, testing::net(4, 3), name, {}, s, o);
    EXPECT_EQ(a.iteration_s, b.iteration_s) << name;
    ASSERT_EQ(a.iteration_s.size(), 24u) << name;
    EXPECT_EQ(a.load_bytes.size(), 24u) << name;
    for (const auto& l : a.load_bytes) EXPECT_NEAR(testing::sum(l), w.total_bytes(), 1e-6 * w.total_bytes()) << name;
  }
}

}  // namespace
}  // namespace dmlkit::ps
