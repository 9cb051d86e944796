// The live controller against the in-memory FakeSlurm (live/fake_slurm.h): no Slurm daemons, a
// virtual clock, so every scenario runs in milliseconds and exactly the same way each time. Jobs
// are submitted, started, finished, preempted, moved and reshaped as the policy decides; the
// bookkeeping the policy reads is checked against the timeline; faults (a failed node, Slurm
// unreachable, refused credentials, a refused command, the controller restarted from its state
// file) are handled.
#include "live/controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "cluster/policy.h"
#include "core/error.h"
#include "live/fake_slurm.h"
#include "live/status.h"

namespace dmlkit::live {
namespace {

namespace cl = dmlkit::cluster;

// A policy whose decision is a function given by the test.
class ScriptedPolicy final : public cl::Policy {
 public:
  using Fn = std::function<void(const cl::ClusterView&, std::span<const cl::JobView>, std::span<cl::Placement>)>;
  explicit ScriptedPolicy(Fn fn) : fn_(std::move(fn)) {}
  void schedule(const cl::ClusterView& view, std::span<const cl::JobView> jobs, std::span<cl::Placement> out) override {
    fn_(view, jobs, out);
  }

 private:
  Fn fn_;
};

struct Rig {
  FakeSlurm slurm;
  ControllerOptions options;
  std::ostringstream log;
  Rig(int nodes, int gpus_per_node) {
    slurm.add_nodes(nodes, gpus_per_node);
    options.policy_name = "test";
    options.round_s = 1;
    options.poll_s = 0.5;
    options.log = &log;
  }
  int64_t submit(int nodes, int gpus_per_node, double run_s = -1, const std::string& comment = "") {
    JobRequest q;
    q.nodes = nodes;
    q.gpus_per_node = gpus_per_node;
    q.comment = comment;
    q.script = "job.sh";
    const int64_t id = slurm.submit(q);
    if (run_s >= 0) slurm.set_run_time(id, run_s);
    return id;
  }
  bool all_completed(const std::vector<int64_t>& ids) const {
    for (int64_t id : ids)
      if (!slurm.job(id) || slurm.job(id)->state != "COMPLETED") return false;
    return true;
  }
  // Runs the controller's loop until `done` or `limit_s` virtual seconds after now.
  void run(Controller& c, const std::function<bool()>& done, double limit_s = 600,
           const std::function<void(const SlurmSnapshot&, double)>& on_poll = {}) {
    const double end = slurm.now_s() + limit_s;
    c.run([&] { return done() || slurm.now_s() >= end; }, on_poll);
  }
  std::map<int64_t, std::vector<Decision>> by_job(const Controller& c) const {
    std::map<int64_t, std::vector<Decision>> m;
    for (const auto& d : c.decisions()) m[d.slurm_id].push_back(d);
    return m;
  }
};

int gpus_of(const SlurmJob& j) {
  int g = 0;
  for (const auto& a : j.allocation) g += a.gpus;
  return g;
}

TEST(LiveController, FifoPlacesHeldJobsAsDecidedAndAllComplete) {
  Rig rig(4, 4);
  // 8 + 4 + 4 GPUs fill the 16-GPU cluster; the fourth job must wait for one of them to finish.
  const std::vector<int64_t> ids = {rig.submit(2, 4, 3, "dmlkit:name=a"), rig.submit(1, 4, 3, "dmlkit:name=b"),
                                    rig.submit(1, 4, 3, "dmlkit:name=c"), rig.submit(1, 2, 2, "dmlkit:name=d")};
  for (int64_t id : ids) EXPECT_TRUE(rig.slurm.job(id)->pending() && rig.slurm.job(id)->held());
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  std::map<int64_t, std::set<std::string>> ran_on;
  std::map<int64_t, int> max_gpus;
  bool d_started_while_full = false;
  rig.run(
      c, [&] { return rig.all_completed(ids) && c.tracked_jobs() == 0; }, 60,
      [&](const SlurmSnapshot& snap, double) {
        int running_big = 0;
        for (const auto& j : snap.jobs) running_big += j.active_running() && j.id != ids[3];
        for (const auto& j : snap.jobs) {
          if (!j.active_running()) continue;
          std::vector<std::pair<std::string, int>> a;
          for (const auto& x : j.allocation) a.emplace_back(x.node, x.gpus);
          std::sort(a.begin(), a.end());
          ran_on[j.id].insert(alloc_text(a));
          max_gpus[j.id] = std::max(max_gpus[j.id], gpus_of(j));
          if (j.id == ids[3] && running_big == 3) d_started_while_full = true;
        }
      });
  ASSERT_TRUE(rig.all_completed(ids)) << rig.log.str();
  auto by_job = rig.by_job(c);
  const std::vector<int> requested = {8, 4, 4, 2};
  for (size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE("job " + std::to_string(ids[i]));
    ASSERT_EQ(by_job[ids[i]].size(), 1u) << rig.log.str();  // placed once, never preempted by fifo
    EXPECT_EQ(by_job[ids[i]][0].action, "place");
    ASSERT_EQ(ran_on[ids[i]].size(), 1u);
    EXPECT_EQ(*ran_on[ids[i]].begin(), by_job[ids[i]][0].placement);  // ran where it was put
    EXPECT_EQ(max_gpus[ids[i]], requested[i]);
    EXPECT_EQ(rig.slurm.job(ids[i])->restarts, 0);
  }
  EXPECT_FALSE(d_started_while_full);
  EXPECT_GT(by_job[ids[3]][0].model_time_s, 3.0) << "d is placed once a, b or c finished";
  for (const auto& h : rig.slurm.history()) EXPECT_EQ(h.find("requeue"), std::string::npos) << h;
  EXPECT_EQ(c.finished().size(), 4u);
  EXPECT_EQ(c.tracked_jobs(), 0u);
}

// One job: placed on node1 until t=10, stopped until t=15, then placed on node2. What the policy
// reads follows that timeline exactly (virtual clock, polls every 0.5 s).
TEST(LiveController, BookkeepingThePolicyReadsFollowsTheTimeline) {
  Rig rig(2, 4);
  const int64_t id = rig.submit(1, 2);
  std::vector<std::pair<double, cl::JobView>> seen;  // (model time, view) per round
  ScriptedPolicy policy([&](const cl::ClusterView& v, std::span<const cl::JobView> jobs, std::span<cl::Placement> out) {
    ASSERT_EQ(jobs.size(), 1u);
    seen.emplace_back(v.now_s, jobs[0]);
    out[0] = v.now_s < 10 ? cl::Placement{{0, 2}} : v.now_s < 15 ? cl::Placement{} : cl::Placement{{1, 2}};
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  rig.run(
      c, [] { return false; }, 20);
  auto at = [&](double t) {
    for (const auto& [now, view] : seen)
      if (now == t) return view;
    ADD_FAILURE() << "no round at t=" << t;
    return cl::JobView{};
  };
  // Placed at t=0, Slurm starts it at the next tick (0.5): running and credited from then.
  EXPECT_EQ(at(0).restarts, 0);
  EXPECT_EQ(at(1).restarts, 1);
  EXPECT_EQ(at(1).executed_s, 0.5);
  EXPECT_EQ(at(1).attained_gpu_s, 1.0);
  EXPECT_TRUE(at(1).running());
  EXPECT_EQ(at(10).executed_s, 9.5);
  EXPECT_EQ(at(10).attained_gpu_s, 19.0);
  EXPECT_EQ(at(10).preemptions, 0);
  // Stopped (requeuehold) at the round of t=10.
  EXPECT_FALSE(at(12).running());
  EXPECT_EQ(at(12).preemptions, 1);
  EXPECT_EQ(at(12).last_stopped_s, 10.0);
  EXPECT_EQ(at(12).queued_since_s, 10.0);
  EXPECT_EQ(at(12).executed_s, 9.5);
  // Placed on node2 at t=15 (started 15.5), run until the loop ends at t=20.
  const cl::JobAccount* a = c.account(id);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->restarts, 2);
  EXPECT_EQ(a->preemptions, 1);
  EXPECT_EQ(a->executed_s, 9.5 + 4.0);
  EXPECT_EQ(a->attained_gpu_s, 2 * (9.5 + 4.0));
  EXPECT_EQ(a->last_stopped_s, 10.0);
  ASSERT_TRUE(rig.slurm.job(id)->active_running());
  EXPECT_EQ(rig.slurm.job(id)->allocation.at(0).node, "node2");
  const std::vector<std::string> expected = {"submit 1",       "place 1 node1 gpu:2", "release 1",
                                             "requeue_hold 1", "place 1 node2 gpu:2", "release 1"};
  EXPECT_EQ(rig.slurm.history(), expected);
}

TEST(LiveController, MovingARunningJobIsAPreemptionThenAPlacement) {
  Rig rig(2, 4);
  const int64_t id = rig.submit(1, 4, 30);
  ScriptedPolicy policy([&](const cl::ClusterView& v, std::span<const cl::JobView>, std::span<cl::Placement> out) {
    out[0] = v.now_s < 5 ? cl::Placement{{0, 4}} : cl::Placement{{1, 4}};
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  rig.run(
      c, [&] { return rig.all_completed({id}); }, 120);
  ASSERT_TRUE(rig.all_completed({id})) << rig.log.str();
  std::vector<std::string> actions;
  for (const auto& d : c.decisions()) actions.push_back(d.action + " " + d.placement);
  ASSERT_EQ(actions.size(), 3u) << rig.log.str();
  EXPECT_EQ(actions[0], "place node1:4");
  EXPECT_EQ(actions[1], "preempt ");
  EXPECT_EQ(c.decisions()[1].note, "restart on node2:4 once requeued");
  EXPECT_EQ(c.decisions()[1].model_time_s, 5.0);
  EXPECT_EQ(actions[2], "place node2:4");
  EXPECT_EQ(c.decisions()[2].model_time_s, 6.0);  // the next round: node2 was not just left
  EXPECT_EQ(rig.slurm.job(id)->restarts, 1);
}

TEST(LiveController, RestartOnTheNodeJustLeftWaitsForTheRequeueToSettle) {
  Rig rig(2, 4);
  const int64_t id = rig.submit(1, 4);
  ScriptedPolicy policy([&](const cl::ClusterView& v, std::span<const cl::JobView>, std::span<cl::Placement> out) {
    out[0] = (v.now_s >= 5 && v.now_s < 6) ? cl::Placement{} : cl::Placement{{0, 4}};
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  rig.run(
      c, [] { return false; }, 10);
  auto by_job = rig.by_job(c)[id];
  ASSERT_EQ(by_job.size(), 3u) << rig.log.str();
  EXPECT_EQ(by_job[1].action, "preempt");
  EXPECT_EQ(by_job[1].model_time_s, 5.0);
  // Requeued at wall t0+5: slurmd would refuse node1 until the next whole second has passed
  // (t0+7.05); the rounds at 6 and 7 defer, the poll at 7.5 triggers the placement.
  EXPECT_EQ(by_job[2].action, "place");
  EXPECT_EQ(by_job[2].placement, "node1:4");
  EXPECT_EQ(by_job[2].model_time_s, 7.5);
}

TEST(LiveController, UnevenDecisionIsReshapedToUniformGpusPerNode) {
  Rig rig(4, 4);
  const int64_t id = rig.submit(2, 3);  // 6 GPUs
  ScriptedPolicy policy([&](const cl::ClusterView&, std::span<const cl::JobView> jobs, std::span<cl::Placement> out) {
    if (!jobs[0].running()) out[0] = {{0, 4}, {1, 2}};
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  rig.run(
      c, [&] { return rig.slurm.job(id)->active_running(); }, 5);
  ASSERT_TRUE(rig.slurm.job(id)->active_running()) << rig.log.str();
  EXPECT_EQ(rig.slurm.history().at(1), "place 1 node1,node2 gpu:3");
  ASSERT_EQ(c.decisions().size(), 1u);
  EXPECT_EQ(c.decisions()[0].note, "reshaped to 2 node(s) x 3 GPUs (uniform per node)");
  EXPECT_EQ(gpus_of(*rig.slurm.job(id)), 6);
}

// The wide job W (8 GPUs) is always decided as 4+2+2 on node1, node3, node2 (in that order), while
// two 2-GPU jobs run on node2 (A, 3 s) and node3 (B, 8 s): no uniform shape of 8 GPUs is free
// until A ends (2 x 4 on node1, node2), and when B ends a new reshaping would pick node1, node3.
struct UnevenRun {
  std::vector<Decision> wide_decisions;
  int wide_restarts = -1;
  std::set<int> wide_gpus;  // GPU totals Slurm ran W with
};
UnevenRun run_uneven(Unexpressible mode) {
  Rig rig(3, 4);
  rig.options.unexpressible = mode;
  const int64_t a = rig.submit(1, 2, 3), b = rig.submit(1, 2, 8), w = rig.submit(2, 4, 20);
  ScriptedPolicy policy([&](const cl::ClusterView&, std::span<const cl::JobView> jobs, std::span<cl::Placement> out) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      const int gpus = jobs[i].job->num_gpus;
      out[i] = gpus == 8 ? cl::Placement{{0, 4}, {2, 2}, {1, 2}}
                         : cl::Placement{{jobs[i].job->id == 0 ? 1 : 2, 2}};
    }
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  UnevenRun r;
  rig.run(
      c, [&] { return rig.all_completed({a, b, w}); }, 120,
      [&](const SlurmSnapshot& snap, double) {
        for (const auto& j : snap.jobs)
          if (j.id == w && j.active_running()) r.wide_gpus.insert(gpus_of(j));
      });
  EXPECT_TRUE(rig.all_completed({a, b, w})) << rig.log.str();
  r.wide_decisions = rig.by_job(c)[w];
  r.wide_restarts = rig.slurm.job(w)->restarts;
  return r;
}

TEST(LiveController, WithWaitAnUnexpressibleDecisionWaitsForAUniformShapeAndRunsOnce) {
  const UnevenRun r = run_uneven(Unexpressible::Wait);
  ASSERT_EQ(r.wide_decisions.size(), 1u);
  const Decision& d = r.wide_decisions[0];
  EXPECT_EQ(d.action, "place");
  EXPECT_EQ(d.placement, "node1:4,node2:4");
  EXPECT_EQ(d.note, "reshaped to 2 node(s) x 4 GPUs (uniform per node)");
  EXPECT_GE(d.model_time_s, 3.0) << "placed only once A ended";
  EXPECT_EQ(r.wide_gpus, std::set<int>{8}) << "never narrowed";
  EXPECT_EQ(r.wide_restarts, 0) << "started once: B's end does not reshape it again";
}

// The old behaviour, still available: narrowed at once, then reshaped (restarted) as GPUs free up.
TEST(LiveController, WithNarrowAnUnexpressibleDecisionRunsNarrowedAndIsReshapedAgain) {
  const UnevenRun r = run_uneven(Unexpressible::Narrow);
  ASSERT_GE(r.wide_decisions.size(), 3u);
  EXPECT_EQ(r.wide_decisions[0].note, "narrowed to 3 node(s) x 2 GPUs (uniform per node, <= decided)");
  EXPECT_EQ(r.wide_decisions[0].model_time_s, 0.0);
  EXPECT_TRUE(r.wide_gpus.count(6));
  EXPECT_GE(r.wide_restarts, 2);
}

// 5 GPUs on two nodes of 4 is no uniform shape even on an empty cluster: with wait the job does not
// wait forever but runs on the largest count that has one (1 x 4) and completes.
TEST(LiveController, WithWaitAWidthNoUniformShapeCanGiveRunsNarrowedAndCompletes) {
  Rig rig(2, 4);
  const int64_t id = rig.submit(2, 4, 5);
  ScriptedPolicy policy([&](const cl::ClusterView&, std::span<const cl::JobView>, std::span<cl::Placement> out) {
    out[0] = {{0, 3}, {1, 2}};
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  rig.run(c, [&] { return rig.all_completed({id}); }, 60);
  ASSERT_TRUE(rig.all_completed({id})) << rig.log.str();
  const auto d = rig.by_job(c)[id];
  ASSERT_EQ(d.size(), 1u) << rig.log.str();
  EXPECT_EQ(d[0].placement, "node1:4");
  EXPECT_EQ(d[0].note, "narrowed to 1 node(s) x 4 GPUs (no uniform shape of 5 GPUs on the usable nodes)");
  EXPECT_EQ(rig.slurm.job(id)->restarts, 0);
}

TEST(LiveController, NeverWidensAJobsGpuRequest) {
  Rig rig(2, 4);
  const std::vector<int64_t> ids = {rig.submit(1, 2, 2), rig.submit(2, 1, 2), rig.submit(1, 3, 2, "dmlkit:gpus=1")};
  // Asks for as many GPUs as it can get.
  ScriptedPolicy greedy(
      [](const cl::ClusterView& view, std::span<const cl::JobView> jobs, std::span<cl::Placement> out) {
        std::vector<int> free;
        for (const auto& s : view.cluster->servers) free.push_back(s.gpus);
        for (const auto& j : jobs)
          for (const auto& sl : j.placement) free[sl.server] -= sl.gpus;
        for (size_t i = 0; i < jobs.size(); ++i) {
          if (jobs[i].running()) continue;
          const auto best = std::max_element(free.begin(), free.end()) - free.begin();
          if (free[best] <= 0) continue;
          out[i] = {{static_cast<int>(best), free[best]}};
          free[best] = 0;
        }
      });
  Controller c(rig.slurm, greedy, rig.options);
  c.start();
  std::map<int64_t, int> max_gpus;
  rig.run(
      c, [&] { return rig.all_completed(ids); }, 60,
      [&](const SlurmSnapshot& snap, double) {
        for (const auto& j : snap.jobs) max_gpus[j.id] = std::max(max_gpus[j.id], gpus_of(j));
      });
  ASSERT_TRUE(rig.all_completed(ids)) << rig.log.str();
  EXPECT_EQ(max_gpus[ids[0]], 2);
  EXPECT_GE(max_gpus[ids[1]], 1);
  EXPECT_LE(max_gpus[ids[1]], 2);
  EXPECT_EQ(max_gpus[ids[2]], 1);
}

TEST(LiveController, JobsOfAFailedNodeAreHeldAndPlacedElsewhere) {
  Rig rig(4, 4);
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(rig.submit(1, 4, 10));
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  const double t0 = rig.slurm.now_s();
  std::string dead;
  rig.run(c, [&] {
    if (dead.empty() && rig.slurm.now_s() >= t0 + 2) {
      dead = rig.slurm.job(ids[0])->allocation.at(0).node;
      rig.slurm.fail_node(dead);  // Slurm requeues the job, not held
    }
    return rig.all_completed(ids);
  });
  ASSERT_TRUE(rig.all_completed(ids)) << rig.log.str();
  std::vector<std::string> seq;
  for (const auto& d : rig.by_job(c)[ids[0]]) seq.push_back(d.action + " " + d.placement);
  ASSERT_EQ(seq.size(), 3u) << rig.log.str();
  EXPECT_EQ(seq[0], "place " + dead + ":4");
  EXPECT_EQ(seq[1], "hold ");  // pending without a placement from the controller
  EXPECT_EQ(seq[2].rfind("place ", 0), 0u);
  EXPECT_EQ(seq[2].find(dead + ":"), std::string::npos) << "placed again on the dead node";
  EXPECT_EQ(rig.slurm.job(ids[0])->restarts, 1);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(rig.slurm.job(ids[i])->restarts, 0);
}

TEST(LiveController, ANodeThatIsDownOrDrainedHasNoGpusInTheView) {
  Rig rig(3, 4);
  rig.slurm.set_node_state("node1", "down*", {"NOT_RESPONDING"});
  rig.slurm.set_node_state("node2", "drained", {"DRAIN"});
  rig.submit(1, 4);
  std::vector<int> gpus;
  ScriptedPolicy policy([&](const cl::ClusterView& v, std::span<const cl::JobView>, std::span<cl::Placement>) {
    gpus.clear();
    for (const auto& s : v.cluster->servers) gpus.push_back(s.gpus);
  });
  Controller c(rig.slurm, policy, rig.options);
  c.start();
  rig.run(
      c, [] { return false; }, 1);
  EXPECT_EQ(gpus, (std::vector<int>{0, 0, 4}));
  rig.slurm.resume_node("node1");
  rig.run(
      c, [] { return false; }, 1);
  EXPECT_EQ(gpus, (std::vector<int>{4, 0, 4}));
}

// Issue 12, defect 2: with a node down, a job asking for every GPU of the full cluster is shown to
// the policy with the GPUs that are up, runs narrowed, and completes; its request comes back when
// the node does.
TEST(LiveController, AJobWiderThanTheNodesThatAreUpRunsNarrowed) {
  Rig rig(4, 4);
  rig.slurm.set_node_state("node2", "down*", {"NOT_RESPONDING"});
  const int64_t wide = rig.submit(4, 4, 10, "dmlkit:gpus=16");
  const int64_t small = rig.submit(1, 2, 10, "dmlkit:gpus=2");
  auto policy = cl::make_policy("tiresias", {});
  rig.options.policy_name = "tiresias";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  rig.run(c, [&] { return rig.all_completed({wide, small}); });
  ASSERT_TRUE(rig.all_completed({wide, small})) << rig.log.str();
  for (const auto& d : rig.by_job(c)[wide]) EXPECT_EQ(d.placement.find("node2"), std::string::npos) << d.placement;
}

// Issue 12, defect 1: a node lost under tiresias (jobs requeued by Slurm, out of sight for a
// while, then shown again) crashes nothing and loses no job.
TEST(LiveController, TiresiasSurvivesANodeLostWhileJobsRun) {
  Rig rig(4, 4);
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(rig.submit(i % 2 ? 2 : 1, 4, 5 + i, ""));
  auto policy = cl::make_policy("tiresias", {});
  rig.options.policy_name = "tiresias";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  const double t0 = rig.slurm.now_s();
  bool failed = false, back = false;
  rig.run(c, [&] {
    if (!failed && rig.slurm.now_s() >= t0 + 2) {
      rig.slurm.fail_node("node2");
      failed = true;
    }
    if (failed && !back && rig.slurm.now_s() >= t0 + 30) {
      rig.slurm.resume_node("node2");
      back = true;
    }
    return rig.all_completed(ids);
  });
  EXPECT_TRUE(rig.all_completed(ids)) << rig.log.str();
}

// Issue 12: a job Slurm does not start on the nodes it was placed on (they look idle) is held
// again after start_timeout_s and placed elsewhere; the node shows no free GPUs for a while.
TEST(LiveController, AJobSlurmDoesNotStartIsPlacedElsewhereAfterTheTimeout) {
  Rig rig(2, 4);
  rig.slurm.set_refuses_starts("node1", true);
  rig.options.start_timeout_s = 5;
  const int64_t id = rig.submit(1, 4, 10);
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  rig.run(c, [&] { return rig.all_completed({id}); }, 120);
  ASSERT_TRUE(rig.all_completed({id})) << rig.log.str();
  std::vector<std::string> seq;
  for (const auto& d : rig.by_job(c)[id]) seq.push_back(d.action + " " + d.placement);
  ASSERT_EQ(seq.size(), 3u) << rig.log.str();
  EXPECT_EQ(seq[0], "place node1:4");
  EXPECT_EQ(seq[1], "hold ");
  EXPECT_EQ(seq[2], "place node2:4");
  EXPECT_NE(rig.log.str().find("not started by Slurm within 5 s on node1:4"), std::string::npos) << rig.log.str();
}

// Issue 12, seen on the lab after a node failure: Slurm keeps counting GPUs no job holds, so jobs
// placed there never start. The controller reports it and, when allowed, runs `scontrol
// reconfigure`; the jobs then run.
TEST(LiveController, AGresLeakIsReportedAndRepairedWhenAllowed) {
  for (bool repair : {false, true}) {
    SCOPED_TRACE(repair ? "repair" : "report only");
    Rig rig(1, 4);
    rig.slurm.leak_gpus("node1", 4);
    rig.options.repair_gres_leaks = repair;
    rig.options.leak_grace_s = 2;
    rig.options.start_timeout_s = 0;
    const int64_t id = rig.submit(1, 4, 5);
    auto policy = cl::make_policy("fifo", {});
    rig.options.policy_name = "fifo";
    Controller c(rig.slurm, *policy, rig.options);
    c.start();
    rig.run(c, [&] { return rig.all_completed({id}); }, 60);
    EXPECT_EQ(rig.all_completed({id}), repair) << rig.log.str();
    EXPECT_EQ(rig.slurm.reconfigures(), repair ? 1 : 0) << rig.log.str();
    EXPECT_NE(rig.log.str().find("GPUs no job holds on node1 (4 GPUs used, jobs hold 0)"), std::string::npos)
        << rig.log.str();
  }
}

// A job that fails on its own (non-zero exit: Slurm's FAILED, not requeued) is reported as failed
// and never placed again.
TEST(LiveController, AJobThatFailsOnItsOwnIsReportedAndNotRetried) {
  Rig rig(2, 4);
  const int64_t bad = rig.submit(1, 4);
  const int64_t good = rig.submit(1, 4, 5);
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  bool failed = false;
  rig.run(c, [&] {
    const SlurmJob* j = rig.slurm.job(bad);
    if (!failed && j && j->state == "RUNNING") {
      rig.slurm.finish(bad, "FAILED");
      failed = true;
    }
    return failed && rig.all_completed({good});
  });
  rig.run(c, [] { return false; }, 20);  // more rounds after the failure
  ASSERT_TRUE(failed) << rig.log.str();
  EXPECT_NE(rig.log.str().find("finished: FAILED"), std::string::npos) << rig.log.str();
  EXPECT_EQ(rig.by_job(c)[bad].size(), 1u) << rig.log.str();  // placed once, never again
  EXPECT_EQ(rig.slurm.job(bad)->state, "FAILED");
}

// --max-retries N: a job whose script exits non-zero is requeued held and placed again at most N
// times, then reported as failed (never retried forever); one that succeeds on a retry completes.
TEST(LiveController, AFailingJobIsRetriedAtMostMaxRetriesTimesThenReportedFailed) {
  Rig rig(2, 4);
  const int64_t always = rig.submit(1, 4, 2);  // fails every time
  rig.slurm.set_failing_runs(always, 1000);
  const int64_t once = rig.submit(1, 4, 2);  // fails once, then succeeds
  rig.slurm.set_failing_runs(once, 1);
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  rig.options.max_retries = 2;
  rig.options.state_path = (std::filesystem::temp_directory_path() / "dmlkit-retry-state.json").string();
  std::filesystem::remove(rig.options.state_path);
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  rig.run(c, [&] { return c.failed_jobs().size() == 1 && rig.all_completed({once}); }, 120);
  rig.run(c, [] { return false; }, 30);  // and nothing more happens afterwards
  ASSERT_EQ(c.failed_jobs().size(), 1u) << rig.log.str();
  EXPECT_EQ(c.failed_jobs()[0].slurm_id, always);
  EXPECT_EQ(c.failed_jobs()[0].state, "FAILED");
  EXPECT_EQ(c.failed_jobs()[0].retries, 2);
  EXPECT_EQ(rig.slurm.job(always)->state, "FAILED");
  EXPECT_EQ(rig.slurm.job(always)->restarts, 2);  // requeued twice, run three times
  EXPECT_TRUE(rig.all_completed({once})) << rig.log.str();
  int placed_always = 0, retried_always = 0, retried_once = 0;
  for (const auto& d : c.decisions()) {
    if (d.slurm_id == always && d.action == "place") ++placed_always;
    if (d.slurm_id == always && d.action == "retry") ++retried_always;
    if (d.slurm_id == once && d.action == "retry") ++retried_once;
  }
  EXPECT_EQ(placed_always, 3) << rig.log.str();
  EXPECT_EQ(retried_always, 2);
  EXPECT_EQ(retried_once, 1);
  EXPECT_NE(rig.log.str().find("failed (FAILED) after 2 retries (--max-retries 2); reported as failed"),
            std::string::npos)
      << rig.log.str();
  // The failure is kept in the state file, for `cluster status`.
  const LiveStatus st = read_live_status(rig.options.state_path);
  ASSERT_EQ(st.failed.size(), 1u);
  EXPECT_EQ(st.failed[0].slurm_id, always);
  EXPECT_EQ(st.failed[0].retries, 2);
  std::filesystem::remove(rig.options.state_path);
}

// The default (0) never retries: the job is placed once and reported failed.
TEST(LiveController, ByDefaultAFailingJobIsNotRetried) {
  Rig rig(1, 4);
  const int64_t id = rig.submit(1, 4, 2);
  rig.slurm.set_failing_runs(id, 1);
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  rig.run(c, [&] { return !c.failed_jobs().empty(); }, 60);
  rig.run(c, [] { return false; }, 20);
  ASSERT_EQ(c.failed_jobs().size(), 1u) << rig.log.str();
  EXPECT_EQ(c.failed_jobs()[0].retries, 0);
  EXPECT_EQ(rig.slurm.job(id)->state, "FAILED");
  EXPECT_EQ(rig.slurm.job(id)->restarts, 0);
}

TEST(LiveController, APendingJobReleasedBySomeoneElseIsHeldAgain) {
  Rig rig(2, 4);
  const int64_t id = rig.submit(1, 4);
  rig.slurm.release(id);  // another operator
  ScriptedPolicy idle([](const cl::ClusterView&, std::span<const cl::JobView>, std::span<cl::Placement>) {});
  Controller c(rig.slurm, idle, rig.options);
  c.start();
  rig.run(
      c, [] { return false; }, 3);
  ASSERT_EQ(c.decisions().size(), 1u);
  EXPECT_EQ(c.decisions()[0].action, "hold");
  EXPECT_TRUE(rig.slurm.job(id)->pending() && rig.slurm.job(id)->held());
}

TEST(LiveController, ARefusedCommandIsLoggedAndTheJobPlacedLater) {
  Rig rig(2, 4);
  const int64_t id = rig.submit(1, 4, 2);
  rig.slurm.fail_next("place");
  auto policy = cl::make_policy("fifo", {});
  rig.options.policy_name = "fifo";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  rig.run(
      c, [&] { return rig.all_completed({id}); }, 30);
  EXPECT_TRUE(rig.all_completed({id}));
  EXPECT_NE(rig.log.str().find("place failed: place: injected failure"), std::string::npos) << rig.log.str();
  ASSERT_EQ(c.decisions().size(), 1u);
  EXPECT_EQ(c.decisions()[0].model_time_s, 1.0);  // the next round
}

TEST(LiveController, SlurmUnreachableMakesItWaitAndRetry) {
  Rig rig(2, 4);
  const std::vector<int64_t> ids = {rig.submit(1, 4, 2), rig.submit(1, 4, 2)};
  auto policy = cl::make_policy("tiresias", {});
  rig.options.policy_name = "tiresias";
  Controller c(rig.slurm, *policy, rig.options);
  c.start();
  const double t0 = rig.slurm.now_s();
  rig.run(c, [&] {
    rig.slurm.set_unreachable(rig.slurm.now_s() >= t0 + 1 && rig.slurm.now_s() < t0 + 6);
    return rig.all_completed(ids) && c.tracked_jobs() == 0;  // the controller saw them finish
  });
  EXPECT_TRUE(rig.all_completed(ids)) << rig.log.str();
  EXPECT_NE(rig.log.str().find("slurmctld unreachable"), std::string::npos);
  EXPECT_NE(rig.log.str().find("slurmctld reachable again"), std::string::npos);
}

TEST(LiveController, RefusesToStartWithoutCredentialsOrOperatorRights) {
  ScriptedPolicy idle([](const cl::ClusterView&, std::span<const cl::JobView>, std::span<cl::Placement>) {});
  {
    Rig rig(1, 4);
    rig.slurm.set_auth_failure(true);
    Controller c(rig.slurm, idle, rig.options);
    try {
      c.start();
      FAIL() << "started without credentials";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot authenticate"), std::string::npos) << e.what();
    }
  }
  {
    Rig rig(1, 4);
    rig.slurm.set_operator(false);
    Controller c(rig.slurm, idle, rig.options);
    EXPECT_THROW(c.start(), Error);
  }
  {
    // Unreachable: waits (on the virtual clock) until told to give up.
    Rig rig(1, 4);
    rig.slurm.set_unreachable(true);
    Controller c(rig.slurm, idle, rig.options);
    const double t0 = rig.slurm.now_s();
    EXPECT_THROW(c.start([&] { return rig.slurm.now_s() > t0 + 10; }), Error);
    EXPECT_GT(rig.slurm.now_s(), t0 + 10);
  }
}

TEST(LiveController, RestartedFromItsStateFileItLosesAndDuplicatesNothing) {
  const std::string dir = ::testing::TempDir() + "/live-controller-state";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Rig rig(4, 4);
  std::vector<int64_t> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(rig.submit(1, 4, 4));
  rig.options.policy_name = "fifo";
  rig.options.state_path = dir + "/state.json";
  std::vector<Decision> decisions;
  {
    auto policy = cl::make_policy("fifo", {});
    Controller first(rig.slurm, *policy, rig.options);
    first.start();
    rig.run(
        first, [] { return false; }, 2);  // the first four run, the controller dies
    decisions = first.decisions();
  }
  ASSERT_EQ(decisions.size(), 4u);
  // `cluster status` reads the same file: four jobs running where they were placed, four waiting.
  const LiveStatus st = read_live_status(rig.options.state_path);
  EXPECT_EQ(st.policy, "fifo");
  ASSERT_EQ(st.jobs.size(), 8u);
  int running = 0, waiting = 0;
  for (const auto& j : st.jobs) {
    running += j.status == "running";
    waiting += j.status == "waiting";
    if (j.status == "running") {
      EXPECT_EQ(j.placement.find(":4"), j.placement.size() - 2) << j.placement;
    }
  }
  EXPECT_EQ(running, 4);
  EXPECT_EQ(waiting, 4);
  EXPECT_GT(st.last_decision_wall_s, 0.0);
  EXPECT_THROW(read_live_status(dir + "/none.json"), Error);
  auto policy = cl::make_policy("fifo", {});
  Controller second(rig.slurm, *policy, rig.options);
  second.start();
  EXPECT_NE(rig.log.str().find("8 jobs restored from the state file"), std::string::npos) << rig.log.str();
  rig.run(second, [&] { return rig.all_completed(ids); });
  ASSERT_TRUE(rig.all_completed(ids)) << rig.log.str();
  for (const auto& d : second.decisions()) decisions.push_back(d);
  std::map<int64_t, int> places;
  for (const auto& d : decisions) places[d.slurm_id] += d.action == "place";
  for (int64_t id : ids) {
    EXPECT_EQ(places[id], 1) << "job " << id;
    EXPECT_EQ(rig.slurm.job(id)->restarts, 0) << "job " << id;
  }
  std::filesystem::remove_all(dir);
}

// The fake itself, where the controller tests rely on it.
TEST(FakeSlurm, FollowsSlurmsHoldPlaceReleaseRequeueCycle) {
  FakeSlurm s;
  s.add_nodes(2, 4);
  JobRequest q;
  q.nodes = 1;
  q.gpus_per_node = 2;
  const int64_t id = s.submit(q);
  EXPECT_TRUE(s.job(id)->pending() && s.job(id)->held());
  s.advance(1);
  EXPECT_TRUE(s.job(id)->pending()) << "a held job never starts";
  EXPECT_THROW(s.place(id, {"node9"}, 2, 1), SlurmError);
  s.place(id, {"node2"}, 2, 1);
  s.release(id);
  EXPECT_TRUE(s.job(id)->pending()) << "starts at the next scheduler tick";
  s.advance(1);
  ASSERT_TRUE(s.job(id)->active_running());
  EXPECT_EQ(s.job(id)->allocation.at(0).node, "node2");
  EXPECT_EQ(s.nodes()[1].gpus_used, 2);
  EXPECT_EQ(s.nodes()[1].state, "mixed");
  EXPECT_THROW(s.place(id, {"node1"}, 2, 1), SlurmError) << "a running job cannot be moved";
  EXPECT_THROW(s.hold(id), SlurmError);
  s.requeue_hold(id);
  EXPECT_TRUE(s.job(id)->pending() && s.job(id)->held());
  EXPECT_EQ(s.job(id)->restarts, 1);
  EXPECT_EQ(s.nodes()[1].gpus_used, 0);
  s.set_run_time(id, 3);
  s.release(id);
  s.advance(1);
  s.advance(2.5);
  EXPECT_TRUE(s.job(id)->active_running());
  s.advance(0.5);
  EXPECT_EQ(s.job(id)->state, "COMPLETED");
  s.advance(s.min_job_age_s);
  EXPECT_EQ(s.job(id), nullptr) << "purged after MinJobAge";
  s.set_unreachable(true);
  try {
    s.jobs();
    FAIL();
  } catch (const SlurmError& e) {
    EXPECT_EQ(e.kind(), SlurmError::Kind::Unreachable);
  }
}

TEST(FakeSlurm, AFailedNodeRequeuesItsJobsUnheld) {
  FakeSlurm s;
  s.add_nodes(2, 4);
  JobRequest q;
  q.gpus_per_node = 4;
  const int64_t id = s.submit(q);
  s.place(id, {"node1"}, 4, 1);
  s.release(id);
  s.advance(1);
  ASSERT_TRUE(s.job(id)->active_running());
  s.fail_node("node1");
  EXPECT_TRUE(s.job(id)->pending());
  EXPECT_FALSE(s.job(id)->held());
  EXPECT_EQ(s.job(id)->restarts, 1);
  EXPECT_FALSE(s.nodes()[0].usable());
  s.advance(1);
  EXPECT_TRUE(s.job(id)->pending()) << "its node is down";
  s.resume_node("node1");
  s.advance(1);
  EXPECT_TRUE(s.job(id)->active_running());
}

}  // namespace
}  // namespace dmlkit::live
