// PSLD as reconstructed: estimates, exploration, migrations and scale-in, on small simulated runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ps/policies/psld_estimator.h"
#include "ps/policies/psld_planner.h"
#include "ps/ps_test_util.h"
#include "ps/runner.h"

namespace dmlkit::ps {
namespace {

using testing::chain;
using testing::net;
using testing::sum;

// 8 tensors of 8 MB: 16 blocks of 4,096,000 bytes (and 8 remainders).
comm::TrainingWorkload eight_tensors() { return chain(std::vector<double>(8, 8e6)); }

TEST(Psld, EstimatesConvergeToAKnownStragglerFactor) {
  // CPU-bound servers (100 Gbps NICs, 0.2 GB/s aggregation): server 0's CPU is 4x slower for the
  // whole run and re-planning is switched off, so its throughput estimate must approach 1/4 of the
  // others' (the network part of the service time makes it a little less than 4).
  StragglerScenario s;
  s.events.push_back({0, 0, 1000, StragglerKind::cpu, 4});
  PsRunOptions o;
  o.iterations = 30;
  o.server_Bps = 2e8;
  const auto r = run_policy(eight_tensors(), net(4, 4, 12.5e9), "psld", {{"psld.min_gain", "100"}}, s, o);
  ASSERT_FALSE(r.estimate_Bps.empty());
  const auto& est = r.estimate_Bps.back();
  ASSERT_GE(est.size(), 4u);
  for (int j = 1; j < 4; ++j) {
    const double ratio = est[j] / est[0];
    EXPECT_NEAR(ratio, 4.0, 0.4) << "server " << j;
  }
  EXPECT_TRUE(r.events.empty());
}

TEST(Psld, ExplorationDetectsARecoveredServer) {
  // Server 0 is 20x slower for iterations [0, 40), then healthy. PSLD drains it (scale-in); after
  // the recovery a probe (explore) must find it and load must come back within explore_period +
  // a few switch/cool-down delays.
  StragglerScenario s;
  s.events.push_back({0, 0, 40, StragglerKind::cpu, 20});
  PsRunOptions o;
  o.iterations = 110;
  o.server_Bps = 2e8;
  const auto r = run_policy(eight_tensors(), net(4, 4, 12.5e9), "psld", {}, s, o);
  bool scaled_in = false, explored_after = false;
  for (const auto& e : r.events) {
    scaled_in = scaled_in || (e.kind == "scale-in" && e.switch_iteration <= 40);
    explored_after = explored_after || (e.kind == "explore" && e.decided_iteration >= 40);
  }
  EXPECT_TRUE(scaled_in);
  EXPECT_TRUE(explored_after);
  // Bound: recovery at 40, probe within explore_period (20) of the last one, observation lag 2,
  // switch >= 1, cool-down 5, then a rebalance: server 0 back to at least half the mean by 40+50.
  const int bound = 90;
  ASSERT_GT(static_cast<int>(r.load_bytes.size()), bound);
  const auto& l = r.load_bytes[bound];
  EXPECT_GE(l[0], 0.5 * sum(l) / 4) << "server 0 load at iteration " << bound;
}

TEST(Psld, MigrationMovesExactlyTheReassignedBytes) {
  // Planner level: the moves carry exactly the bytes of the blocks whose server changed.
  const auto w = eight_tensors();
  const auto blocks = make_blocks(w, 4096000);
  std::vector<int> map(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) map[i] = static_cast<int>(i % 4);
  const auto r = plan_min_max(blocks, map, {1, 1, 1, 1}, {1e9, 4e9, 4e9, 4e9}, 1000);
  double changed = 0, moved = 0;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (r.block_server[i] != map[i]) changed += blocks[i].bytes;
  for (const auto& m : moves_between(blocks, map, r.block_server)) {
    moved += m.bytes;
    EXPECT_NE(m.from, m.to);
  }
  EXPECT_GT(changed, 0);
  EXPECT_DOUBLE_EQ(moved, changed);
  EXPECT_DOUBLE_EQ(r.moved_bytes, changed);
  EXPECT_LT(r.new_max_s, r.old_max_s);
  // Run level: every switch's simulated transfers carried exactly the bytes the plan moved.
  StragglerScenario s = straggler_preset("rotating", 4, 60);
  PsRunOptions o;
  o.iterations = 60;
  o.server_Bps = 2e8;
  const auto run = run_policy(w, net(4, 4, 12.5e9), "psld", {}, s, o);
  ASSERT_FALSE(run.events.empty());
  for (const auto& e : run.events) EXPECT_DOUBLE_EQ(e.transferred_bytes, e.moved_bytes) << e.kind;
}

TEST(Psld, ScaleInNeverDropsAKey) {
  const auto w = eight_tensors();
  const auto blocks = make_blocks(w, 4096000);
  std::vector<int> map(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) map[i] = static_cast<int>(i % 4);
  // Draining server 2: every block ends on an allowed server and every tensor keeps its bytes.
  const auto r = plan_min_max(blocks, map, {1, 1, 0, 1}, {1e9, 1e9, 1e9, 1e9}, 1000);
  for (int s : r.block_server) EXPECT_NE(s, 2);
  const auto p = placement_of(w, blocks, r.block_server);
  for (size_t t = 0; t < w.tensors.size(); ++t) {
    double b = 0;
    for (const auto& piece : p.tensor_pieces[t]) b += piece.bytes;
    EXPECT_DOUBLE_EQ(b, w.tensors[t].bytes) << "tensor " << t;
  }
  // In a run with a persistent heavy straggler: scale-in happens and every iteration's map holds
  // all bytes.
  StragglerScenario s;
  s.events.push_back({2, 0, 1000, StragglerKind::cpu, 20});
  PsRunOptions o;
  o.iterations = 40;
  o.server_Bps = 2e8;
  const auto run = run_policy(w, net(4, 4, 12.5e9), "psld", {}, s, o);
  bool scaled_in = false;
  for (const auto& e : run.events) scaled_in = scaled_in || e.kind == "scale-in";
  EXPECT_TRUE(scaled_in);
  for (const auto& l : run.load_bytes) EXPECT_NEAR(sum(l), w.total_bytes(), 1e-6 * w.total_bytes());
  EXPECT_DOUBLE_EQ(run.load_bytes.back()[2], 0.0);
}

TEST(Psld, ScalesOutToASpareServerWhenAllAreSaturated) {
  // Communication-bound (8 MB tensors, 3 ms of compute) on 2 servers with one spare host allowed:
  // every server is busy almost all of the iteration, so PSLD adds the spare and moves load onto it.
  const auto w = eight_tensors();
  PsRunOptions o;
  o.iterations = 30;
  const auto r = run_policy(w, net(4, 2), "psld", {{"psld.spare_servers", "1"}, {"psld.max_servers", "3"}}, {}, o);
  bool scaled_out = false;
  for (const auto& e : r.events) scaled_out = scaled_out || (e.kind == "scale-out" && e.active_servers == 3);
  EXPECT_TRUE(scaled_out);
  EXPECT_EQ(r.server_hosts, 3);
  EXPECT_GT(r.load_bytes.back()[2], 0.0);
  EXPECT_NEAR(sum(r.load_bytes.back()), w.total_bytes(), 1e-6 * w.total_bytes());
  // Without the spare, the same run never uses a third host.
  const auto base = run_policy(w, net(4, 2), "psld", {}, {}, o);
  EXPECT_EQ(base.server_hosts, 2);
  EXPECT_LT(r.total_s, base.total_s);
}

TEST(Psld, EstimatorIsARatioOfAverages) {
  ThroughputEstimator e(2, 0.5);
  IterationObservation o;
  o.servers = {{100, 1}, {0, 0}};
  e.observe(o);
  EXPECT_DOUBLE_EQ(e.throughput_Bps(0), 100);
  EXPECT_FALSE(e.known(1));
  o.servers = {{100, 3}, {0, 0}};
  e.observe(o);
  EXPECT_DOUBLE_EQ(e.throughput_Bps(0), 100.0 / 2);  // ewma bytes 100, ewma busy 2
  EXPECT_EQ(e.age(1), 2);
}

TEST(Psld, DeterministicForASeed) {
  const auto w = eight_tensors();
  PsRunOptions o;
  o.iterations = 30;
  o.server_Bps = 2e8;
  const auto s = straggler_preset("rotating", 4, 30);
  const auto a = run_policy(w, net(4, 4, 12.5e9), "psld", {}, s, o);
  const auto b = run_policy(w, net(4, 4, 12.5e9), "psld", {}, s, o);
  EXPECT_EQ(a.iteration_s, b.iteration_s);
  EXPECT_EQ(a.events.size(), b.events.size());
}

}  // namespace
}  // namespace dmlkit::ps
