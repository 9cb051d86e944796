// The simulator on hand-built scenarios: exact finish times, restart delay, preemption counting,
// decision validation, determinism, idle-time skipping and the safety stops, in both profiles.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"
#include "trace_job.h"

namespace dmlkit::cluster {
namespace {

Workload simulator_workload_of(std::vector<Job> jobs) {
  Workload w;
  w.name = "test";
  w.jobs = std::move(jobs);
  return w;
}

// Starts waiting jobs in arrival order on the first servers with room; never preempts.
class GreedyPolicy : public Policy {
 public:
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    std::vector<int> free;
    for (const auto& s : view.cluster->servers) free.push_back(s.gpus);
    for (size_t i = 0; i < jobs.size(); ++i)
      for (const auto& s : jobs[i].placement) free[s.server] -= s.gpus;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].running()) continue;
      int need = jobs[i].job->num_gpus;
      Placement p;
      for (size_t s = 0; s < free.size() && need > 0; ++s) {
        int take = std::min(free[s], need);
        if (take > 0) p.push_back({static_cast<int>(s), take});
        need -= take;
      }
      if (need > 0) continue;
      for (const auto& s : p) free[s.server] -= s.gpus;
      out[i] = p;
    }
  }
};

// Returns a fixed placement for every job, whatever the state (to provoke invalid decisions).
class FixedPolicy : public Policy {
 public:
  explicit FixedPolicy(Placement p) : p_(std::move(p)) {}
  void schedule(const ClusterView&, std::span<const JobView> jobs, std::span<Placement> out) override {
    for (size_t i = 0; i < jobs.size(); ++i) out[i] = p_;
  }

 private:
  Placement p_;
};

// Runs job 0 on server 0 until `move_at_s`, then on server 1 (one placement change), or stops it
// between `stop_from_s` and `stop_until_s` (one preemption).
class ScriptPolicy : public Policy {
 public:
  double move_at_s = 1e18;
  double stop_from_s = 1e18, stop_until_s = 1e18;
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    for (size_t i = 0; i < jobs.size(); ++i) {
      const int server = view.now_s >= move_at_s ? 1 : 0;
      if (view.now_s >= stop_from_s && view.now_s < stop_until_s)
        out[i].clear();
      else
        out[i] = Placement{{server, jobs[i].job->num_gpus}};
    }
  }
};

SimConfig event_config() {
  SimConfig c;
  c.profile = SimProfile::Default;
  c.round_s = 60;
  c.restart_delay_s = 30;
  return c;
}

TEST(Simulator, JobFinishesExactlyAfterDelayAndWork) {
  const auto cluster = ClusterSpec::homogeneous(2, 4);
  const auto w = simulator_workload_of({trace_job(0, 10, 2, 100)});
  GreedyPolicy policy;
  const SimResult r = simulate(cluster, w, "greedy", policy, event_config());
  ASSERT_EQ(r.jobs.size(), 1u);
  const JobRecord& j = r.jobs[0];
  EXPECT_TRUE(j.finished());
  EXPECT_DOUBLE_EQ(j.first_start_s, 10);
  EXPECT_DOUBLE_EQ(j.finish_s, 10 + 30 + 100);
  EXPECT_DOUBLE_EQ(j.executed_s, 130);
  EXPECT_DOUBLE_EQ(j.gpu_s, 260);
  EXPECT_EQ(j.restarts, 1);
  EXPECT_EQ(j.preemptions, 0);
  EXPECT_DOUBLE_EQ(r.makespan_s, 130);
  EXPECT_EQ(r.total_gpus, 8);
  EXPECT_FALSE(r.timed_out);
}

TEST(Simulator, FirstStartDelayIsOptional) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 10, 2, 100)});
  GreedyPolicy policy;
  SimConfig c = event_config();
  c.charge_first_start = false;
  const SimResult r = simulate(cluster, w, "greedy", policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 110);
}

TEST(Simulator, RoundsOnlyWaitForTheNextGridPoint) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 10, 2, 100)});
  GreedyPolicy policy;
  SimConfig c = event_config();
  c.schedule_on_events = false;
  const SimResult r = simulate(cluster, w, "greedy", policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start_s, 60);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 190);
}

TEST(Simulator, CompletionFreesGpusForTheNextJobAtOnce) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 4, 100), trace_job(1, 5, 4, 50)});
  GreedyPolicy policy;
  const SimResult r = simulate(cluster, w, "greedy", policy, event_config());
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 130);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 130);  // re-planned at the completion, not at t=180
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 210);
  EXPECT_DOUBLE_EQ(r.jobs[1].queued_s(), 125);
}

TEST(Simulator, PlacementChangeChargesTheRestartDelay) {
  const auto cluster = ClusterSpec::homogeneous(2, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 2, 300)});
  ScriptPolicy policy;
  policy.move_at_s = 120;
  const SimResult r = simulate(cluster, w, "script", policy, event_config());
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 30 + 300 + 30);
  EXPECT_EQ(r.jobs[0].restarts, 2);
  EXPECT_EQ(r.jobs[0].preemptions, 0);  // moved, never lost all its GPUs
}

TEST(Simulator, PreemptionIsCountedAndWorkIsKept) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 2, 300)});
  ScriptPolicy policy;
  policy.stop_from_s = 120;
  policy.stop_until_s = 240;
  SimConfig c = event_config();
  const SimResult r = simulate(cluster, w, "script", policy, c);
  // Runs 0..120 (30 s delay, 90 s of work), waits 120..240, restarts: 30 s delay + 210 s of work.
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 240 + 30 + 210);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_EQ(r.jobs[0].restarts, 2);
  EXPECT_DOUBLE_EQ(r.jobs[0].executed_s, 120 + 240);
}

TEST(Simulator, PolluxProfileUsesFixedTicks) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 10, 2, 100)});
  GreedyPolicy policy;
  SimConfig c = event_config();
  c.profile = SimProfile::Pollux;
  const SimResult r = simulate(cluster, w, "greedy", policy, c);
  // Seen at the first tick after arrival (60), 30 s delay, then 100 s of work: done at 190.
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start_s, 60);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 190);
  EXPECT_DOUBLE_EQ(r.jobs[0].jct_s(), 180);
  // Decisions at 60, 120 and 180 only.
  ASSERT_EQ(r.rounds.size(), 3u);
  EXPECT_DOUBLE_EQ(r.rounds[0].time_s, 60);
  EXPECT_EQ(r.rounds[0].gpus_busy, 2);
  EXPECT_EQ(r.rounds[0].running_jobs, 1);
}

TEST(Simulator, PolluxProfileSeesArrivalAtATickInThatTick) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 120, 4, 60), trace_job(1, 121, 4, 60)});
  GreedyPolicy policy;
  SimConfig c = event_config();
  c.profile = SimProfile::Pollux;
  const SimResult r = simulate(cluster, w, "greedy", policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start_s, 120);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 210);
  // Job 1 waits for the tick after job 0 finished (240), then 30 + 60 s.
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 240);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 330);
  EXPECT_EQ(r.rounds[0].queued_jobs, 0);
  EXPECT_EQ(r.rounds[1].queued_jobs, 1);  // at 180: job 1 waits behind job 0
}

TEST(Simulator, IdleTimeIsSkipped) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 1, 100), trace_job(1, 1e8, 1, 100)});
  for (auto profile : {SimProfile::Default, SimProfile::Pollux}) {
    GreedyPolicy policy;
    SimConfig c = event_config();
    c.profile = profile;
    const SimResult r = simulate(cluster, w, "greedy", policy, c);
    EXPECT_TRUE(r.jobs[1].finished());
    EXPECT_LT(r.rounds.size(), 20u);  // not 1e8 / 60 empty rounds
    // Pollux: seen at the first tick at or after 1e8 (100000020), then 30 + 100 s.
    EXPECT_NEAR(r.jobs[1].jct_s(), profile == SimProfile::Default ? 130 : 150, 1e-6);
  }
}

TEST(Simulator, RejectsServerOutOfRange) {
  const auto cluster = ClusterSpec::homogeneous(2, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 1, 100)});
  FixedPolicy policy({{7, 1}});
  try {
    simulate(cluster, w, "broken", policy, event_config());
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("broken"), std::string::npos) << msg;
    EXPECT_NE(msg.find("job-0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("server 7"), std::string::npos) << msg;
  }
}

TEST(Simulator, RejectsOverCapacityDuplicatesAndEmptySlices) {
  const auto cluster = ClusterSpec::homogeneous(2, 4);
  const auto two = simulator_workload_of({trace_job(0, 0, 3, 100), trace_job(1, 0, 3, 100)});
  {
    FixedPolicy policy({{1, 3}});  // both jobs on server 1: 6 > 4
    try {
      simulate(cluster, two, "greedy-bug", policy, event_config());
      FAIL() << "expected std::logic_error";
    } catch (const std::logic_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("job-1"), std::string::npos) << msg;
      EXPECT_NE(msg.find("server 1"), std::string::npos) << msg;
      EXPECT_NE(msg.find("capacity"), std::string::npos) << msg;
    }
  }
  const auto one = simulator_workload_of({trace_job(0, 0, 2, 100)});
  {
    FixedPolicy policy({{0, 1}, {0, 1}});
    EXPECT_THROW(simulate(cluster, one, "dup", policy, event_config()), std::logic_error);
  }
  {
    FixedPolicy policy({{0, 0}});
    EXPECT_THROW(simulate(cluster, one, "zero", policy, event_config()), std::logic_error);
  }
  {
    SimConfig c = event_config();
    c.profile = SimProfile::Pollux;
    FixedPolicy policy({{1, 3}});
    EXPECT_THROW(simulate(cluster, two, "greedy-bug", policy, c), std::logic_error);
  }
}

TEST(Simulator, ValidationCanBeTurnedOff) {
  const auto cluster = ClusterSpec::homogeneous(2, 4);
  const auto two = simulator_workload_of({trace_job(0, 0, 3, 100), trace_job(1, 0, 3, 100)});
  FixedPolicy policy({{1, 3}});
  SimConfig c = event_config();
  c.validate = false;
  const SimResult r = simulate(cluster, two, "trusted", policy, c);
  EXPECT_TRUE(r.jobs[0].finished());
  EXPECT_TRUE(r.jobs[1].finished());
}

TEST(Simulator, JobThatNeverRunsStopsTheRun) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 1, 100), trace_job(1, 0, 8, 100)});
  for (auto profile : {SimProfile::Default, SimProfile::Pollux}) {
    GreedyPolicy policy;
    SimConfig c = event_config();
    c.profile = profile;
    const SimResult r = simulate(cluster, w, "greedy", policy, c);
    EXPECT_TRUE(r.timed_out);
    EXPECT_TRUE(r.jobs[0].finished());
    EXPECT_FALSE(r.jobs[1].finished());
  }
}

TEST(Simulator, MaxTimeStopsTheRun) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 4, 1e6), trace_job(1, 10, 4, 10)});
  GreedyPolicy policy;
  SimConfig c = event_config();
  c.max_time_s = 5000;
  const SimResult r = simulate(cluster, w, "greedy", policy, c);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.jobs[0].finished());
  EXPECT_FALSE(r.jobs[1].finished());
  EXPECT_LE(r.rounds.back().time_s, 5000);
}

TEST(Simulator, RejectsBadConfig) {
  const auto cluster = ClusterSpec::homogeneous(1, 4);
  const auto w = simulator_workload_of({trace_job(0, 0, 1, 100)});
  GreedyPolicy policy;
  SimConfig c = event_config();
  c.round_s = 0;
  EXPECT_THROW(simulate(cluster, w, "greedy", policy, c), Error);
  c = event_config();
  c.restart_delay_s = -1;
  EXPECT_THROW(simulate(cluster, w, "greedy", policy, c), Error);
}

TEST(Simulator, IsDeterministicAndReportsProgress) {
  const auto cluster = ClusterSpec::homogeneous(2, 4);
  std::vector<Job> jobs;
  for (int i = 0; i < 200; ++i) jobs.push_back(trace_job(i, i * 37.0, 1 + (i * 7) % 4, 50 + (i * 131) % 900));
  const auto w = simulator_workload_of(jobs);
  auto run = [&](SimProfile profile, int& calls) {
    GreedyPolicy policy;
    SimConfig c = event_config();
    c.profile = profile;
    c.on_progress = [&](double, size_t done, size_t total) {
      ++calls;
      EXPECT_LE(done, total);
    };
    return simulate(cluster, w, "greedy", policy, c);
  };
  for (auto profile : {SimProfile::Default, SimProfile::Pollux}) {
    int calls_a = 0, calls_b = 0;
    const SimResult a = run(profile, calls_a);
    const SimResult b = run(profile, calls_b);
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) {
      EXPECT_TRUE(a.jobs[i].finished());
      EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s);
      EXPECT_EQ(a.jobs[i].first_start_s, b.jobs[i].first_start_s);
      EXPECT_EQ(a.jobs[i].gpu_s, b.jobs[i].gpu_s);
    }
    ASSERT_EQ(a.rounds.size(), b.rounds.size());
    EXPECT_GE(calls_a, 1);
    EXPECT_EQ(calls_a, calls_b);
  }
}

TEST(Simulator, DefaultProfileRunsMeasuredProfileJobs) {
  // Profile jobs (a bundled Pollux workload) under the event-driven profile: every job finishes,
  // after at least the restart delay, and a rerun is identical.
  const Workload w =
      load_workload(std::string(DMLKIT_SOURCE_DIR) + "/data/workloads/workloads/workload-6.csv", WorkloadOptions{});
  for (const char* name : {"tiresias", "optimus-oracle"}) {
    auto run = [&] {
      auto policy = make_policy(name, PolicyOptions{});
      return simulate(ClusterSpec::homogeneous(16, 4), w, name, *policy, event_config());
    };
    const SimResult a = run(), b = run();
    EXPECT_FALSE(a.timed_out) << name;
    ASSERT_EQ(a.jobs.size(), 160u);
    for (size_t i = 0; i < a.jobs.size(); ++i) {
      ASSERT_TRUE(a.jobs[i].finished()) << name << " " << a.jobs[i].name;
      EXPECT_GE(a.jobs[i].jct_s(), 30.0) << a.jobs[i].name;
      EXPECT_GE(a.jobs[i].first_start_s, a.jobs[i].arrival_s);
      EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s);
    }
  }
}

}  // namespace
}  // namespace dmlkit::cluster
