// Straggler scenarios: presets, the file format and its errors, and their effect in the simulator.
#include <gtest/gtest.h>

#include "core/error.h"
#include "ps/ps_test_util.h"
#include "ps/runner.h"
#include "ps/stragglers.h"

namespace dmlkit::ps {
namespace {

TEST(Stragglers, Presets) {
  EXPECT_TRUE(straggler_preset("none", 4, 100).events.empty());
  const auto p = straggler_preset("persistent", 4, 100);
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_DOUBLE_EQ(p.cpu_factor(0, 99), 4);
  EXPECT_DOUBLE_EQ(p.cpu_factor(1, 50), 1);
  const auto r = straggler_preset("rotating", 4, 100);
  EXPECT_DOUBLE_EQ(r.cpu_factor(0, 5), 4);
  EXPECT_EQ(r.background_flows(1, 15), 8);
  EXPECT_DOUBLE_EQ(r.cpu_factor(2, 25), 4);
  const auto b = straggler_preset("burst", 4, 100);
  EXPECT_DOUBLE_EQ(b.cpu_factor(1, 39), 1);
  EXPECT_DOUBLE_EQ(b.cpu_factor(1, 45), 8);
  EXPECT_DOUBLE_EQ(b.cpu_factor(1, 50), 1);
}

TEST(Stragglers, FileFormat) {
  const auto s = parse_straggler_file(
      "# comment\nserver,start_iteration,end_iteration,kind,amount\n1,10,20,cpu,2.5\n3,0,5,bandwidth,4\n", "f.csv", 4);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_DOUBLE_EQ(s.cpu_factor(1, 10), 2.5);
  EXPECT_DOUBLE_EQ(s.cpu_factor(1, 20), 1);
  EXPECT_EQ(s.background_flows(3, 4), 4);
}

TEST(Stragglers, ANonexistentServerNamesFileLineAndField) {
  try {
    parse_straggler_file("server,start_iteration,end_iteration,kind,amount\n7,0,5,cpu,2\n", "s.csv", 4);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "s.csv");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "server");
  }
  EXPECT_THROW(parse_straggler_file("0,5,5,cpu,2\n", "s.csv", 4), Error);        // empty window
  EXPECT_THROW(parse_straggler_file("0,0,5,gpu,2\n", "s.csv", 4), Error);        // kind
  EXPECT_THROW(parse_straggler_file("0,0,5,bandwidth,1.5\n", "s.csv", 4), Error);  // flows
  EXPECT_THROW(parse_straggler_file("0,0,5,cpu\n", "s.csv", 4), Error);          // fields
  EXPECT_THROW(load_stragglers("no-such-preset", 4, 10), Error);
}

TEST(Stragglers, SlowCpuAndBackgroundFlowsSlowTraining) {
  // One server holds everything (round-robin over a single tensor): its CPU slowed 4x, or 8
  // background flows through its NIC, must lengthen the iterations while active, and only then.
  const auto w = testing::chain({64e6});
  PsRunOptions o;
  o.iterations = 12;
  o.server_Bps = 1e9;
  const auto base = run_policy(w, testing::net(4, 2), "round-robin", {}, {}, o);
  StragglerScenario cpu, bw;
  cpu.events.push_back({0, 4, 8, StragglerKind::cpu, 4});
  bw.events.push_back({0, 4, 8, StragglerKind::bandwidth, 8});
  const auto a = run_policy(w, testing::net(4, 2), "round-robin", {}, cpu, o);
  const auto b = run_policy(w, testing::net(4, 2), "round-robin", {}, bw, o);
  EXPECT_NEAR(a.iteration_s[1], base.iteration_s[1], 1e-9);
  EXPECT_GT(a.iteration_s[6], 1.5 * base.iteration_s[6]);
  EXPECT_GT(b.iteration_s[6], 1.5 * base.iteration_s[6]);
  EXPECT_NEAR(a.iteration_s[11], base.iteration_s[11], 0.05 * base.iteration_s[11]);
  EXPECT_NEAR(b.iteration_s[11], base.iteration_s[11], 0.05 * base.iteration_s[11]);
}

}  // namespace
}  // namespace dmlkit::ps
