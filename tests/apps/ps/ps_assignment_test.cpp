// Each default assignment matches its framework's rule on hand-computed cases.
#include <gtest/gtest.h>

#include "cluster/speed/ps_assignment.h"
#include "core/param_assignment.h"
#include "ps/policies/byteps_hash.h"
#include "ps/policy.h"
#include "ps/ps_test_util.h"

namespace dmlkit::ps {
namespace {

using testing::chain;
using testing::whole_server;

Placement place(const std::string& policy, const comm::TrainingWorkload& w, int servers, KnobValues params = {},
                uint64_t seed = 1) {
  auto p = make_policy(policy, params);
  PsContext ctx{&w, servers, 2, 1.25e9, seed};
  return p->initial(ctx);
}

TEST(PsAssignment, MxnetHashesSmallKeysByPrimeStride) {
  // Keys 0..3, all below the bound: server (k * 9973) mod n. 9973 mod 8 = 5: 0, 5, 2 (19946), 7 (29919).
  const auto w = chain({400, 400, 400, 400});
  const auto p8 = place("mxnet", w, 8);
  EXPECT_EQ(whole_server(p8, 0), 0);
  EXPECT_EQ(whole_server(p8, 1), 5);
  EXPECT_EQ(whole_server(p8, 2), 2);
  EXPECT_EQ(whole_server(p8, 3), 7);
  // 9973 mod 4 = 1: exactly key mod 4.
  const auto p4 = place("mxnet", w, 4);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(whole_server(p4, k), k);
}

TEST(PsAssignment, MxnetSplitsBigArraysIntoNearEqualContiguousParts) {
  // Bound 5 elements; a 10-element (40-byte) array over 4 servers: round(2.5 (i+1)) - round(2.5 i)
  // = 3, 2, 3, 2 elements (round half away from zero), part i on server i.
  const auto w = chain({40, 16});
  const auto p = place("mxnet", w, 4, {{"mxnet.bigarray_bound", "5"}});
  ASSERT_EQ(p.tensor_pieces[0].size(), 4u);
  const double expected[] = {12, 8, 12, 8};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(p.tensor_pieces[0][i].server, i);
    EXPECT_DOUBLE_EQ(p.tensor_pieces[0][i].bytes, expected[i]);
  }
  EXPECT_EQ(whole_server(p, 1), 1);  // 4 elements < 5: key 1 -> 9973 mod 4 = 1
}

TEST(PsAssignment, RoundRobinIsKeyModN) {
  const auto w = chain({100, 5000, 100, 7, 9});
  const auto p = place("round-robin", w, 3);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(whole_server(p, k), k % 3);
}

TEST(PsAssignment, BytepsPartitionsAndDjb2) {
  // djb2("0") = 5381 * 33 + '0' = 177621; "1" -> 177622; "65536" -> 210653553582.
  EXPECT_EQ(djb2_key_hash(0), 177621u);
  EXPECT_EQ(djb2_key_hash(1), 177622u);
  EXPECT_EQ(djb2_key_hash(65536), 210653553582u);
  EXPECT_EQ(djb2_key_hash(131072), 6951369072467u);
  // Tensor 0: 10,000,000 bytes -> partitions 4,096,000 + 4,096,000 + 1,808,000 with keys 0, 1, 2;
  // tensor 1 (1,000 bytes) -> key 1 << 16 = 65536. Servers mod 4: 1, 2, 3 and 2.
  const auto w = chain({10000000, 1000});
  const auto p = place("byteps", w, 4);
  ASSERT_EQ(p.tensor_pieces[0].size(), 3u);
  EXPECT_EQ(p.tensor_pieces[0][0].server, 1);
  EXPECT_DOUBLE_EQ(p.tensor_pieces[0][0].bytes, 4096000);
  EXPECT_EQ(p.tensor_pieces[0][1].server, 2);
  EXPECT_DOUBLE_EQ(p.tensor_pieces[0][1].bytes, 4096000);
  EXPECT_EQ(p.tensor_pieces[0][2].server, 3);
  EXPECT_DOUBLE_EQ(p.tensor_pieces[0][2].bytes, 1808000);
  EXPECT_EQ(whole_server(p, 1), 2);
  // Mod 3: 177621 -> 0, 177622 -> 1, 177623 -> 2; 210653553582 -> 0.
  const auto p3 = place("byteps", w, 3);
  EXPECT_EQ(p3.tensor_pieces[0][0].server, 0);
  EXPECT_EQ(p3.tensor_pieces[0][1].server, 1);
  EXPECT_EQ(p3.tensor_pieces[0][2].server, 2);
  EXPECT_EQ(whole_server(p3, 1), 0);
}

TEST(PsAssignment, PaaFillsToTheAverageAndBestFits) {
  // 60, 30, 10 bytes on 2 servers: avg 50. 60 > avg is cut: 50 onto server 0 (both empty, order
  // kept), the rest 10 best fit -> server 1; 30 best fit -> server 1 (gap 10); 10 -> server 1 (gap 0).
  const auto w = chain({60, 30, 10});
  const auto p = place("paa", w, 2);
  ASSERT_EQ(p.tensor_pieces[0].size(), 2u);
  EXPECT_EQ(p.tensor_pieces[0][0].server, 0);
  EXPECT_DOUBLE_EQ(p.tensor_pieces[0][0].bytes, 50);
  EXPECT_EQ(p.tensor_pieces[0][1].server, 1);
  EXPECT_DOUBLE_EQ(p.tensor_pieces[0][1].bytes, 10);
  EXPECT_EQ(whole_server(p, 1), 1);
  EXPECT_EQ(whole_server(p, 2), 1);
}

TEST(PsAssignment, PaaIsTheClusterLevelCode) {
  // The ps policy and the cluster's Optimus PS-balance factor give the same per-server bytes.
  const std::vector<double> sizes{411e6, 67e6, 16e6, 9e6, 2.4e6, 2.4e6, 1.2e6, 0.6e6, 0.3e6, 0.15e6, 0.01e6};
  const auto w = chain(sizes);
  for (int n : {2, 3, 4, 7}) {
    const auto mine = place("paa", w, n).server_bytes(n);
    const auto theirs = cluster::assign_parameters(sizes, n, cluster::PsAssignment::Paa);
    for (int j = 0; j < n; ++j) EXPECT_DOUBLE_EQ(mine[j], theirs.bytes[j]) << n << " servers, server " << j;
  }
}

TEST(PsAssignment, RandomIsSeededAndKeepsEveryByte) {
  const auto w = chain({4e6 * 4, 100, 200, 300, 400, 500});
  const auto a = place("random", w, 4, {}, 7), b = place("random", w, 4, {}, 7), c = place("random", w, 4, {}, 8);
  EXPECT_DOUBLE_EQ(a.total_bytes(), w.total_bytes());
  bool differs = false;
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    ASSERT_EQ(a.tensor_pieces[t].size(), b.tensor_pieces[t].size());
    for (size_t i = 0; i < a.tensor_pieces[t].size(); ++i)
      EXPECT_EQ(a.tensor_pieces[t][i].server, b.tensor_pieces[t][i].server);
    differs = differs || a.tensor_pieces[t].size() != c.tensor_pieces[t].size() ||
              a.tensor_pieces[t][0].server != c.tensor_pieces[t][0].server;
  }
  EXPECT_TRUE(differs);
}

TEST(PsAssignment, UnknownPolicyOrKnobIsAnError) {
  EXPECT_THROW(make_policy("nope", {}), Error);
  EXPECT_THROW(make_policy("mxnet", {{"mxnet.typo", "1"}}), Error);
  EXPECT_THROW(make_policy("psld", {{"psld.ewma_alpha", "2"}}), Error);
}

}  // namespace
}  // namespace dmlkit::ps
