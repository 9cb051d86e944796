// The pure step from a policy's decision to Slurm actions (live/reshape.h), without Slurm: uniform
// GPUs per node, the request cap, which servers a reshaped job takes, and which action each
// (current state, decision) pair gives.
#include "live/reshape.h"

#include <gtest/gtest.h>

#include "core/error.h"

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
  const Shape s = reshape_uniform(c, p, 5, free, Unexpressible::Narrow);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 2}, {"node2", 2}}));
  EXPECT_EQ(s.note, "narrowed to 2 node(s) x 2 GPUs (uniform per node, <= decided)");
  EXPECT_FALSE(s.waits);
}

// 4+2+2 on three nodes of 4 whose node2 and node3 each run 2 GPUs of other jobs: no 2x4, 4x2 or 8x1
// is free. Narrow runs it on fewer GPUs at once; Wait gives it nothing and all its GPUs back.
TEST(LiveReshape, WithNoUniformShapeFreeItWaitsOrIsNarrowed) {
  const auto c = cluster_of(3, 4);
  const cl::Placement job = {{0, 4}, {1, 2}, {2, 2}};
  const cl::Placement others = {{1, 2}, {2, 2}};
  auto free = free_after(c, {job, others});
  const Shape waits = reshape_uniform(c, job, 8, free, Unexpressible::Wait);
  EXPECT_TRUE(waits.waits);
  EXPECT_TRUE(waits.alloc.empty());
  EXPECT_EQ(waits.note, "waits for 8 GPUs as a uniform shape (none free)");
  EXPECT_EQ(free, (std::vector<int>{4, 2, 2}));
  free = free_after(c, {job, others});
  const Shape narrowed = reshape_uniform(c, job, 8, free, Unexpressible::Narrow);
  EXPECT_FALSE(narrowed.waits);
  EXPECT_EQ(narrowed.alloc, (Alloc{{"node1", 2}, {"node2", 2}, {"node3", 2}}));
  // Once node2's other job ends, both modes give 2 x 4 (its own node first).
  for (auto mode : {Unexpressible::Wait, Unexpressible::Narrow}) {
    auto freer = free_after(c, {job, {{2, 2}}});
    EXPECT_EQ(reshape_uniform(c, job, 8, freer, mode).alloc, (Alloc{{"node1", 4}, {"node2", 4}}));
  }
}

// 5 GPUs on two nodes of 4: no uniform shape exists even on an empty cluster, so waiting would never
// end; with Wait the job gets the largest count that has one (4), as 1 x 4, and the note says why.
TEST(LiveReshape, AWidthNoUniformShapeCanEverGiveIsNarrowedToTheLargestThatHasOne) {
  const auto c = cluster_of(2, 4);
  const cl::Placement p = {{0, 3}, {1, 2}};
  auto free = free_after(c, {p});
  const Shape s = reshape_uniform(c, p, 5, free, Unexpressible::Wait);
  EXPECT_FALSE(s.waits);
  EXPECT_EQ(s.alloc, (Alloc{{"node1", 4}}));
  EXPECT_EQ(s.note, "narrowed to 1 node(s) x 4 GPUs (no uniform shape of 5 GPUs on the usable nodes)");
  // ... and waits for those 4 when they are not free.
  auto busy = free_after(c, {p, {{0, 3}, {1, 1}}});
  const Shape w = reshape_uniform(c, p, 5, busy, Unexpressible::Wait);
  EXPECT_TRUE(w.waits);
  EXPECT_EQ(w.note, "waits for 4 GPUs as a uniform shape (none free) (no uniform shape of 5 GPUs on the usable nodes)");
  // A node that is down (no GPUs in the usable cluster) does not count; 6 GPUs on the other two
  // (node3 half taken by another job) wait for 2 x 3.
  auto down = cluster_of(3, 4);
  down.servers[1].gpus = 0;
  auto free_down = free_after(down, {{{0, 4}, {2, 2}}, {{2, 2}}});
  EXPECT_TRUE(reshape_uniform(down, {{0, 4}, {2, 2}}, 6, free_down, Unexpressible::Wait).waits)
      << "2 x 3 fits nodes 1 and 3 once they are free";
  EXPECT_EQ(parse_unexpressible("wait"), Unexpressible::Wait);
  EXPECT_EQ(parse_unexpressible("narrow"), Unexpressible::Narrow);
  EXPECT_THROW(parse_unexpressible("shrink"), Error);
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

// Wait mode, a running job whose new decision (4+2+2) has no uniform shape free: it keeps what it
// runs on while those GPUs are free of the other decisions, and is stopped (to wait pending) when
// another decision takes them. A job running as 2x4 for that same decision is never reshaped.
TEST(LivePlan, AWaitingDecisionKeepsTheRunningAllocationUntilItsGpusAreTaken) {
  const auto c = cluster_of(3, 4);
  const cl::Placement wide = {{0, 4}, {1, 2}, {2, 2}};
  const std::vector<PlanJob> jobs = {running_on(8, {{"node1", 4}}), running_on(2, {{"node2", 2}}),
                                     running_on(2, {{"node3", 2}})};
  const std::vector<cl::Placement> d = {wide, {{1, 2}}, {{2, 2}}};
  EXPECT_TRUE(plan_actions(c, jobs, d, 0, Unexpressible::Wait).empty());
  const auto narrow = plan_actions(c, jobs, d, 0, Unexpressible::Narrow);
  ASSERT_EQ(narrow.size(), 1u);
  EXPECT_EQ(narrow[0].kind, PlannedAction::Kind::Restart);
  // node1's GPUs go to a new job: the waiting one stops.
  const std::vector<PlanJob> four = {jobs[0], jobs[1], jobs[2], pending(4)};
  const std::vector<cl::Placement> d4 = {wide, {{1, 2}}, {{2, 2}}, {{0, 4}}};
  const auto stopped = plan_actions(c, four, d4, 0, Unexpressible::Wait);
  ASSERT_EQ(stopped.size(), 2u);
  EXPECT_EQ(stopped[0].job, 0u);
  EXPECT_EQ(stopped[0].kind, PlannedAction::Kind::Stop);
  EXPECT_EQ(stopped[0].note, "waits for 8 GPUs as a uniform shape (none free)");
  EXPECT_EQ(stopped[1].kind, PlannedAction::Kind::Start);
  // Running as 2 x 4 for the decision 4+2+2: that decision again keeps it where it is, even where a
  // new reshaping would pick other nodes.
  PlanJob shaped = running_on(8, {{"node2", 4}, {"node3", 4}});
  shaped.kept_decision = wide;
  EXPECT_TRUE(plan_actions(c, std::vector<PlanJob>{shaped}, std::vector<cl::Placement>{wide}, 0).empty());
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
  j.kept_decision = {{0, 3, 3, 1}, {1, 1, 1, 0}};
  const std::vector<PlanJob> jobs = {j};
  EXPECT_TRUE(plan_actions(c, jobs, std::vector<cl::Placement>{j.kept_decision}, 0).empty());
  // Changed its mind: reshaped (uniform) and restarted.
  const std::vector<cl::Placement> moved = {{{1, 4, 4, 1}}};
  ASSERT_EQ(plan_actions(c, jobs, moved, 0).size(), 1u);
  // Unchanged, but another job was given node1's GPUs: the allocation no longer fits.
  const std::vector<PlanJob> two = {j, pending(4)};
  const std::vector<cl::Placement> crowded = {j.kept_decision, {{0, 2}}};
  const auto actions = plan_actions(c, two, crowded, 0);
  ASSERT_FALSE(actions.empty());
  EXPECT_EQ(actions[0].job, 0u);
}

}  // namespace dmlkit::live
