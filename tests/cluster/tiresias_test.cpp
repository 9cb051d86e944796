// Tiresias (discretized 2D-LAS): demotion at the queue threshold, strict priority of higher
// queues, starvation promotion, and the Pollux-profile variant (2 queues, 16 GPU-hours, no
// promotion, most-free placement).
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "core/error.h"
#include "trace_job.h"

namespace dmlkit::cluster {
namespace {

// Drives a policy by hand: the caller states each job's executed time; running state comes from
// the policy's previous decision.
class Driver {
 public:
  Driver(ClusterSpec cluster, const PolicyOptions& options)
      : cluster_(std::move(cluster)), policy_(make_policy("tiresias", options)) {}

  // One decision at `now` over `active` (indices into jobs), with executed times `executed`.
  void decide(double now, const std::vector<const Job*>& active, const std::vector<double>& executed) {
    std::vector<JobView> views(active.size());
    std::vector<Placement> out(active.size());
    for (size_t i = 0; i < active.size(); ++i) {
      views[i].job = active[i];
      views[i].placement = placement_[active[i]->id];
      views[i].executed_s = executed[i];
      views[i].attained_gpu_s = executed[i] * active[i]->num_gpus;
      out[i] = views[i].placement;
    }
    ClusterView view;
    view.cluster = &cluster_;
    view.now_s = now;
    view.round_s = 60;
    policy_->schedule(view, views, out);
    for (size_t i = 0; i < active.size(); ++i) placement_[active[i]->id] = out[i];
  }
  bool running(const Job& j) { return !placement_[j.id].empty(); }
  const Placement& placement(const Job& j) { return placement_[j.id]; }

 private:
  ClusterSpec cluster_;
  std::unique_ptr<Policy> policy_;
  std::map<int, Placement> placement_;
};

TEST(Tiresias, IsRegistered) {
  bool found = false;
  for (const auto& info : policy_registry()) found = found || info.name == "tiresias";
  EXPECT_TRUE(found);
}

TEST(Tiresias, FourGpuJobIsDemotedAfter812_5Seconds) {
  // 4-GPU job A runs alone; B (4 GPUs) waits in queue 0 behind it. A's service reaches the default
  // first threshold of 3250 GPU-s after 812.5 s: then it drops to queue 1 and B preempts it.
  const Job a = trace_job(0, 0, 4, 1e6), b = trace_job(1, 10, 4, 1e6);
  Driver d(ClusterSpec::homogeneous(1, 4), PolicyOptions{});
  d.decide(0, {&a}, {0});
  EXPECT_TRUE(d.running(a));
  d.decide(10, {&a, &b}, {10, 0});
  EXPECT_TRUE(d.running(a));
  EXPECT_FALSE(d.running(b));
  d.decide(812.4, {&a, &b}, {812.4, 0});
  EXPECT_TRUE(d.running(a));
  EXPECT_FALSE(d.running(b));
  d.decide(812.5, {&a, &b}, {812.5, 0});
  EXPECT_FALSE(d.running(a));
  EXPECT_TRUE(d.running(b));
}

TEST(Tiresias, HigherQueuePreemptsLowerAndLaterSmallJobsStillFit) {
  // 8 GPUs. A (8 GPUs) has reached queue 1; B (6 GPUs) arrives in queue 0 and preempts it; C (2
  // GPUs, queue 0) still fits beside B, while A, in the lower queue, waits.
  const Job a = trace_job(0, 0, 8, 1e6), b = trace_job(1, 100, 6, 1e6), c = trace_job(2, 100, 2, 1e6);
  Driver d(ClusterSpec::homogeneous(2, 4), PolicyOptions{});
  d.decide(0, {&a}, {0});
  d.decide(500, {&a}, {500});  // 8 x 500 = 4000 GPU-s: queue 1, still runs (nobody else)
  EXPECT_TRUE(d.running(a));
  d.decide(600, {&a, &b, &c}, {600, 0, 0});
  EXPECT_FALSE(d.running(a));
  EXPECT_TRUE(d.running(b));
  EXPECT_TRUE(d.running(c));
  EXPECT_EQ(placement_gpus(d.placement(b)), 6);
  EXPECT_EQ(placement_gpus(d.placement(c)), 2);
}

TEST(Tiresias, PromotesAStarvingJob) {
  // One 4-GPU server. A runs 1000 s (4000 GPU-s: queue 1), then a stream of 4-GPU jobs, each in
  // queue 0 for 500 s, keeps the server busy. With knob 2, A is promoted once it has waited
  // 2 x 1000 s, and runs as soon as the queue-0 job ahead of it leaves; with knob 0 it starves.
  for (double knob : {2.0, 0.0}) {
    PolicyOptions opt;
    opt.params["tiresias.promote_knob"] = std::to_string(knob);
    Driver d(ClusterSpec::homogeneous(1, 4), opt);
    const Job a = trace_job(0, 0, 4, 1e6);
    std::deque<Job> stream;
    for (int k = 0; k < 8; ++k) stream.push_back(trace_job(1 + k, 1000 + 500 * k, 4, 500));
    d.decide(0, {&a}, {0});
    bool a_ran_again = false;
    double a_restart = -1;
    for (int k = 0; k < 8; ++k) {
      const double now = 1000 + 500 * k;
      // Job k arrives now; job k-1 left; A has executed 1000 s in total.
      d.decide(now, {&a, &stream[k]}, {1000, 0});
      if (k == 0) {
        EXPECT_FALSE(d.running(a));
        EXPECT_TRUE(d.running(stream[k]));
      }
      if (d.running(a) && !a_ran_again) {
        a_ran_again = true;
        a_restart = now;
      }
    }
    if (knob > 0) {
      EXPECT_TRUE(a_ran_again);
      // Promoted at 3000 (waited 2000 = 2 x 1000) behind the job that arrived then; runs at 3500.
      EXPECT_DOUBLE_EQ(a_restart, 3500);
    } else {
      EXPECT_FALSE(a_ran_again);
    }
  }
}

TEST(Tiresias, PolluxProfileUsesTwoQueuesOf16GpuHours) {
  PolicyOptions opt;
  opt.profile = "pollux";
  // A (16 GPUs) reaches 57600 GPU-s after 3600 s; at 3599 s it is still in queue 0 and keeps its
  // GPUs against B.
  const Job a = trace_job(0, 0, 16, 1e6), b = trace_job(1, 10, 16, 1e6);
  Driver d(ClusterSpec::homogeneous(4, 4), opt);
  d.decide(60, {&a}, {0});
  const Placement first = d.placement(a);
  d.decide(3599, {&a, &b}, {3599, 0});
  EXPECT_TRUE(d.running(a));
  EXPECT_EQ(d.placement(a), first);
  EXPECT_FALSE(d.running(b));
  d.decide(3600, {&a, &b}, {3600, 0});
  EXPECT_FALSE(d.running(a));
  EXPECT_TRUE(d.running(b));
  // No promotion in this profile: A waits however long B runs (B stays in queue 0 until 3600 s).
  d.decide(3600 + 3599, {&a, &b}, {3600, 3599});
  EXPECT_FALSE(d.running(a));
}

TEST(Tiresias, PolluxProfilePlacesOnTheServerWithMostFreeGpus) {
  PolicyOptions opt;
  opt.profile = "pollux";
  // 3 servers x 4 GPUs. A takes 3 GPUs (server 0), B takes 2 (server 1: most free after A, tie
  // with server 2 goes to the lower index), C (6 GPUs) takes server 2 (4 free) then 2 on server 1.
  const Job a = trace_job(0, 0, 3, 1e6), b = trace_job(1, 0, 2, 1e6), c = trace_job(2, 0, 6, 1e6);
  Driver d(ClusterSpec::homogeneous(3, 4), opt);
  d.decide(60, {&a, &b, &c}, {0, 0, 0});
  EXPECT_EQ(d.placement(a), (Placement{{0, 3}}));
  EXPECT_EQ(d.placement(b), (Placement{{1, 2}}));
  EXPECT_EQ(d.placement(c), (Placement{{2, 4}, {1, 2}}));
}

// The live controller can lose sight of a job for a while (Slurm requeues it after a node failure)
// and show it again: it comes back to the queue it was in, with its service, and can be demoted
// later (this used to erase a missing queue entry: heap corruption, issue 12).
TEST(Tiresias, AJobThatLeavesTheListAndComesBackKeepsItsQueue) {
  const Job a = trace_job(0, 0, 4, 1e6), b = trace_job(1, 950, 4, 1e6);
  Driver d(ClusterSpec::homogeneous(1, 4), PolicyOptions{});
  d.decide(0, {&a}, {0});
  d.decide(900, {&a}, {900});  // 3600 GPU-s: queue 1
  EXPECT_TRUE(d.running(a));
  d.decide(950, {&b}, {0});  // a is gone from the list
  EXPECT_TRUE(d.running(b));
  d.decide(1000, {&a, &b}, {900, 50});  // a is back, still in queue 1: b (queue 0) keeps the GPUs
  EXPECT_TRUE(d.running(b));
  EXPECT_FALSE(d.running(a));
}

TEST(Tiresias, AJobBackInTheListIsDemotedLater) {
  const Job a = trace_job(0, 0, 4, 1e6), b = trace_job(1, 100, 4, 1e6);
  Driver d(ClusterSpec::homogeneous(2, 4), PolicyOptions{});
  d.decide(0, {&a}, {0});
  d.decide(100, {&b}, {0});
  d.decide(200, {&a, &b}, {100, 100});
  EXPECT_NO_THROW(d.decide(1000, {&a, &b}, {900, 900}));  // both cross 3250 GPU-s: both move
  EXPECT_NO_THROW(d.decide(1100, {&b}, {1000}));
  EXPECT_NO_THROW(d.decide(1200, {&a, &b}, {900, 1100}));
  EXPECT_TRUE(d.running(a));
  EXPECT_TRUE(d.running(b));
}

TEST(Tiresias, RejectsBadKnobs) {
  PolicyOptions opt;
  opt.params["tiresias.queues"] = "0";
  EXPECT_THROW(make_policy("tiresias", opt), Error);
  opt.params["tiresias.queues"] = "3";
  opt.params["tiresias.thresholds"] = "3250";
  EXPECT_THROW(make_policy("tiresias", opt), Error);
  opt.params["tiresias.thresholds"] = "7200,3250";
  EXPECT_THROW(make_policy("tiresias", opt), Error);
  opt.params["tiresias.thresholds"] = "3250,7200";
  opt.params["tiresias.service"] = "bogus";
  EXPECT_THROW(make_policy("tiresias", opt), Error);
}

TEST(Tiresias, DemotesInsideTheSimulator) {
  // The same demotion through the event-driven simulator, with rounds every 12.5 s and no restart
  // delay: B starts exactly when A's service reaches 3250 GPU-s.
  Workload w;
  w.jobs = {trace_job(0, 0, 4, 5000), trace_job(1, 10, 4, 100)};
  auto policy = make_policy("tiresias", PolicyOptions{});
  SimConfig c;
  c.round_s = 12.5;
  c.restart_delay_s = 0;
  const SimResult r = simulate(ClusterSpec::homogeneous(1, 4), w, "tiresias", *policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 812.5);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 912.5);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 5100);
}

}  // namespace
}  // namespace dmlkit::cluster
