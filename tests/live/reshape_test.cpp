// The pure step from a policy's decision to Slurm actions (live/reshape.h), without Slurm: uniform
// GPUs per node, the request cap, which servers a reshaped job takes, and which action each
// (current state, decision) pair gives.
#include "live/reshape.h"

#include <gtest/gtest.h>

namespace dmlkit::live {
namespace {

namespace cl = dmlkit::cluster;

cl::ClusterSpec cluster_of(int nodes, int gpus) {
  cl::ClusterSpec c = cl::ClusterSpec::homogeneous(nodes, gpus);
  for (int i = 0; i < nodes; ++i) c.servers[i].name = "node" + std::to_string(i + 1);
  return c;
}

// free GPUs after the decision `decided` alone
std::vector<int> free_after(const cl::ClusterSpec& c, const std::vector<cl::Placement>& decided) {
  std::vector<int> f;
  for (const auto& s : c.servers) f.push_back(s.gpus);
  for (const auto& p : decided)
    for (const auto& sl : p) f[sl.server] -= sl.gpus;
  return f;
}

TEST(LiveReshape, UniformDecisionIsTakenAsItIs) {
  const auto c = cluster_of(4, 4);
  const cl::Placement p = {{0, 2}, {1, 2}};
  auto free = free_after(c, {p});
  const Shape s = reshape_uniform(c, p, 4, free);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 2}, {"node2", 2}}));
  EXPECT_EQ(s.note, "");
  EXPECT_EQ(free, (std::vector<int>{2, 2, 4, 4}));
}

TEST(LiveReshape, UnevenDecisionBecomesUniformWithTheSameTotal) {
  const auto c = cluster_of(4, 4);
  const cl::Placement p = {{0, 4}, {1, 2}};
  auto free = free_after(c, {p});
  const Shape s = reshape_uniform(c, p, 6, free);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 3}, {"node2", 3}}));
  EXPECT_EQ(s.note, "reshaped to 2 node(s) x 3 GPUs (uniform per node)");
  EXPECT_EQ(free, (std::vector<int>{1, 1, 4, 4}));  // what it gave back on node1, took on node2
}

TEST(LiveReshape, TakesOtherServersWithTheMostFreeGpusWhenItsOwnAreFull) {
  const auto c = cluster_of(4, 4);
  // node2 is full except for the job's own 2 GPUs; node3 has 2 free, node4 4 free.
  const cl::Placement job = {{0, 4}, {1, 2}};
  const cl::Placement others = {{1, 2}, {2, 2}};
  auto free = free_after(c, {job, others});
  const Shape s = reshape_uniform(c, job, 6, free);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 3}, {"node4", 3}}));
  EXPECT_EQ(free, (std::vector<int>{1, 2, 2, 1}));
}

TEST(LiveReshape, NeverMoreThanTheRequest) {
  const auto c = cluster_of(4, 4);
  const cl::Placement p = {{0, 4}, {1, 4}};  // 8 GPUs for a job that asked for 4
  auto free = free_after(c, {p});
  const Shape s = reshape_uniform(c, p, 4, free);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 4}}));
  EXPECT_EQ(s.note, "reshaped to 1 node(s) x 4 GPUs (uniform per node)");
}

TEST(LiveReshape, NarrowedWhenNoUniformShapeFits) {
  const auto c = cluster_of(2, 4);
  const cl::Placement p = {{0, 3}, {1, 2}};  // 5 GPUs: no k x g = 5 on two nodes
  auto free = free_after(c, {p});
  const Shape s = reshape_uniform(c, p, 5, free);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 2}, {"node2", 2}}));
  EXPECT_EQ(s.note, "narrowed to 2 node(s) x 2 GPUs (uniform per node, <= decided)");
}

TEST(LiveReshape, EmptyOrInvalidSlicesGiveNoGpus) {
  const auto c = cluster_of(2, 4);
  auto free = free_after(c, {});
  EXPECT_TRUE(reshape_uniform(c, {}, 4, free).alloc.empty());
  EXPECT_TRUE(reshape_uniform(c, {{7, 2}, {0, 0}}, 4, free).alloc.empty());
  EXPECT_EQ(free, (std::vector<int>{4, 4}));
}

PlanJob pending(int cap) {
  PlanJob j;
  j.cap_gpus = cap;
  return j;
}

PlanJob running_on(int cap, Alloc a) {
  PlanJob j;
  j.cap_gpus = cap;
  j.running = true;
  j.current = std::move(a);
  return j;
}

TEST(LivePlan, EachStateAndDecisionGivesItsAction) {
  const auto c = cluster_of(4, 4);
  PlanJob released = pending(4);
  released.released = true;
  released.current = {{"node3", 4}};
  const std::vector<PlanJob> jobs = {
      pending(4),                     // 0: placed -> Start
      running_on(4, {{"node1", 4}}),  // 1: unchanged -> nothing
      running_on(2, {{"node2", 2}}),  // 2: given nothing -> Stop
      running_on(2, {{"node2", 2}}),  // 3: moved to node4 -> Restart
      released,                       // 4: released, not started, re-placed -> Start after a hold
      pending(2),                     // 5: still nothing -> nothing
  };
  const std::vector<cl::Placement> d = {{{1, 2}}, {{0, 4}}, {}, {{3, 2}}, {{2, 2}, {3, 2}}, {}};
  const auto actions = plan_actions(c, jobs, d, 0);
  ASSERT_EQ(actions.size(), 4u);
  EXPECT_EQ(actions[0].job, 0u);
  EXPECT_EQ(actions[0].kind, PlannedAction::Kind::Start);
  EXPECT_FALSE(actions[0].stop);
  EXPECT_EQ(actions[0].start, (Alloc{{"node2", 2}}));
  EXPECT_EQ(actions[1].job, 2u);
  EXPECT_EQ(actions[1].kind, PlannedAction::Kind::Stop);
  EXPECT_TRUE(actions[1].stop);
  EXPECT_TRUE(actions[1].start.empty());
  EXPECT_EQ(actions[2].job, 3u);
  EXPECT_EQ(actions[2].kind, PlannedAction::Kind::Restart);
  EXPECT_TRUE(actions[2].stop);
  EXPECT_EQ(actions[2].start, (Alloc{{"node4", 2}}));
  EXPECT_EQ(actions[2].note, "restart on node4:2 once requeued");
  EXPECT_EQ(actions[3].job, 4u);
  EXPECT_EQ(actions[3].kind, PlannedAction::Kind::Start);
  EXPECT_TRUE(actions[3].stop);
  EXPECT_EQ(actions[3].start, (Alloc{{"node3", 2}, {"node4", 2}}));
}

TEST(LivePlan, SameAllocationInAnotherOrderIsNoChange) {
  const auto c = cluster_of(2, 4);
  const std::vector<PlanJob> jobs = {running_on(4, {{"node2", 2}, {"node1", 2}})};
  const std::vector<cl::Placement> d = {{{0, 2}, {1, 2}}};
  EXPECT_TRUE(plan_actions(c, jobs, d, 0).empty());
}

TEST(LivePlan, RestartOnANodeJustLeftWaitsUntilTheRequeueSettles) {
  const auto c = cluster_of(2, 4);
  PlanJob j = pending(4);
  j.requeued_nodes = {"node1"};
  j.requeue_ready_wall_s = 100;
  const std::vector<PlanJob> jobs = {j};
  const std::vector<cl::Placement> same_node = {{{0, 4}}};
  auto early = plan_actions(c, jobs, same_node, 99.5);
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].kind, PlannedAction::Kind::Defer);
  EXPECT_FALSE(early[0].stop);
  auto later = plan_actions(c, jobs, same_node, 100);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].kind, PlannedAction::Kind::Start);
  // Another node need not wait.
  const std::vector<cl::Placement> other_node = {{{1, 4}}};
  auto elsewhere = plan_actions(c, jobs, other_node, 99.5);
  ASSERT_EQ(elsewhere.size(), 1u);
  EXPECT_EQ(elsewhere[0].kind, PlannedAction::Kind::Start);
}

TEST(LivePlan, EarlierJobsReshapingUsesFreeGpusBeforeLaterOnes) {
  // Job 0 (4+2, reshaped to 3+3) takes a GPU of node2 that job 1's uniform decision does not use.
  const auto c = cluster_of(3, 4);
  const std::vector<PlanJob> jobs = {pending(6), pending(2)};
  const std::vector<cl::Placement> d = {{{0, 4}, {1, 2}}, {{2, 2}}};
  const auto actions = plan_actions(c, jobs, d, 0);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0].start, (Alloc{{"node1", 3}, {"node2", 3}}));
  EXPECT_EQ(actions[1].start, (Alloc{{"node3", 2}}));
}

TEST(LivePlan, AllocText) {
  EXPECT_EQ(alloc_text({}), "-");
  EXPECT_EQ(alloc_text({{"node1", 2}, {"node3", 2}}), "node1:2,node3:2");
}

}  // namespace

// A PS job placed as 3+1 GPUs runs reshaped as 4 on node1; the policy keeps what it was shown (its
// own 3+1 tasks): the job keeps node1:4, whatever a new reshaping would choose, and never moves.
// If another decision takes node1's GPUs, or the policy changes its mind, it is reshaped again.
TEST(LivePlan, APsJobWhoseDecisionIsUnchangedKeepsItsReshapedAllocation) {
  const auto c = cluster_of(2, 4);
  PlanJob j = running_on(4, {{"node1", 4}});
  j.shown = {{0, 3, 3, 1}, {1, 1, 1, 0}};
  const std::vector<PlanJob> jobs = {j};
  EXPECT_TRUE(plan_actions(c, jobs, std::vector<cl::Placement>{j.shown}, 0).empty());
  // Changed its mind: reshaped (uniform) and restarted.
  const std::vector<cl::Placement> moved = {{{1, 4, 4, 1}}};
  ASSERT_EQ(plan_actions(c, jobs, moved, 0).size(), 1u);
  // Unchanged, but another job was given node1's GPUs: the allocation no longer fits.
  const std::vector<PlanJob> two = {j, pending(4)};
  const std::vector<cl::Placement> crowded = {j.shown, {{0, 2}}};
  const auto actions = plan_actions(c, two, crowded, 0);
  ASSERT_FALSE(actions.empty());
  EXPECT_EQ(actions[0].job, 0u);
}

}  // namespace dmlkit::live
