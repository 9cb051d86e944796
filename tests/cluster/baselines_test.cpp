// Behaviour of the baseline policies (fifo, srtf, drf, tetris) on small hand-built scenarios,
// calling the policies directly with hand-made job views and a fake oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <limits>
#include <map>

#include "cluster/policies/factories.h"
#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

// Remaining time known in advance; scales linearly up to the request like a trace job.
class FakeOracle final : public JobOracle {
 public:
  FakeOracle(double remaining_s, int request) : remaining_s_(remaining_s), request_(request) {}
  double remaining_time_s(int gpus) const override {
    if (gpus <= 0) return std::numeric_limits<double>::infinity();
    return remaining_s_ * request_ / std::min(gpus, request_);
  }
  double step_time_s(int gpus) const override { return remaining_time_s(gpus); }
  double remaining_iterations() const override { return 0; }
  int max_gpus() const override { return request_; }

 private:
  double remaining_s_;
  int request_;
};

// A hand-built scenario: a cluster and active jobs in arrival order.
struct Scenario {
  ClusterSpec cluster;
  std::deque<Job> jobs;
  std::deque<FakeOracle> oracles;
  std::vector<JobView> views;

  explicit Scenario(ClusterSpec c) : cluster(std::move(c)) {}
  // Adds a job needing `gpus` GPUs with `remaining_s` left at that size; `placement` if running.
  int add(int gpus, double remaining_s, Placement placement = {}, double cpus_per_gpu = 4, double mem_gb_per_gpu = 16) {
    Job j;
    j.id = static_cast<int>(jobs.size());
    j.name = "job" + std::to_string(j.id);
    j.arrival_s = j.id * 10.0;
    j.num_gpus = gpus;
    j.duration_s = remaining_s;
    j.cpus_per_gpu = cpus_per_gpu;
    j.mem_gb_per_gpu = mem_gb_per_gpu;
    jobs.push_back(j);
    oracles.emplace_back(remaining_s, gpus);
    JobView v;
    v.job = &jobs.back();
    v.placement = std::move(placement);
    v.queued_since_s = j.arrival_s;
    v.oracle = &oracles.back();
    views.push_back(v);
    return j.id;
  }
  std::vector<Placement> run(const std::string& policy, PolicyOptions options = {}) {
    auto p = make_policy(policy, options);
    std::vector<Placement> out(views.size());
    for (size_t i = 0; i < views.size(); ++i) out[i] = views[i].placement;
    ClusterView view;
    view.cluster = &cluster;
    view.now_s = 100;
    p->schedule(view, views, out);
    check_valid(out);
    return out;
  }
  // No server over-committed, each server at most once per job.
  void check_valid(const std::vector<Placement>& out) const {
    std::vector<int> used(cluster.servers.size(), 0);
    for (const auto& p : out) {
      std::vector<int> seen(cluster.servers.size(), 0);
      for (const auto& s : p) {
        ASSERT_GE(s.server, 0);
        ASSERT_LT(s.server, cluster.num_servers());
        EXPECT_GT(s.gpus, 0);
        EXPECT_EQ(seen[s.server]++, 0);
        used[s.server] += s.gpus;
      }
    }
    for (size_t s = 0; s < used.size(); ++s) EXPECT_LE(used[s], cluster.servers[s].gpus) << "server " << s;
  }
};

ClusterSpec one_server(int gpus, double cpus, double mem_gb) {
  ClusterSpec c = ClusterSpec::homogeneous(1, gpus);
  c.servers[0].cpus = cpus;
  c.servers[0].mem_gb = mem_gb;
  return c;
}

TEST(Baselines, RegisteredByName) {
  for (const char* name : {"fifo", "srtf", "drf", "tetris"}) EXPECT_NE(make_policy(name, {}), nullptr) << name;
}

// ---- FIFO ----

TEST(Fifo, HeadOfLineBlocking) {
  Scenario s(ClusterSpec::homogeneous(2, 4));
  s.add(6, 1000, {{0, 4}, {1, 2}});  // running on 6 of 8 GPUs
  s.add(4, 10);                      // head of the queue: needs 4, only 2 free
  s.add(2, 10);                      // would fit, but waits behind job 1
  auto out = s.run("fifo");
  EXPECT_EQ(out[0], (Placement{{0, 4}, {1, 2}}));  // never preempted
  EXPECT_TRUE(out[1].empty());
  EXPECT_TRUE(out[2].empty());
}

TEST(Fifo, BackfillLetsLaterJobsThatFitRun) {
  Scenario s(ClusterSpec::homogeneous(2, 4));
  s.add(6, 1000, {{0, 4}, {1, 2}});
  s.add(4, 10);
  s.add(2, 10);
  PolicyOptions o;
  o.params["fifo.backfill"] = "1";
  auto out = s.run("fifo", o);
  EXPECT_EQ(out[0], (Placement{{0, 4}, {1, 2}}));
  EXPECT_TRUE(out[1].empty());
  EXPECT_EQ(out[2], (Placement{{1, 2}}));
}

TEST(Fifo, ServesInArrivalOrderWithFullRequests) {
  Scenario s(ClusterSpec::homogeneous(2, 4));
  s.add(3, 500);
  s.add(4, 5);
  s.add(2, 5);
  auto out = s.run("fifo");
  EXPECT_EQ(out[0], (Placement{{0, 3}}));  // consolidate: best fit
  EXPECT_EQ(out[1], (Placement{{1, 4}}));
  EXPECT_TRUE(out[2].empty());  // 1 GPU left: waits (gang)
}

TEST(Fifo, PlacementKnob) {
  Scenario s(ClusterSpec::homogeneous(4, 4));
  s.add(4, 10);
  PolicyOptions o;
  o.placement = PlacementKind::Spread;
  auto out = s.run("fifo", o);
  EXPECT_EQ(out[0], (Placement{{0, 1}, {1, 1}, {2, 1}, {3, 1}}));
}

// ---- SRTF ----

TEST(Srtf, RunsTheShorterJobFirst) {
  Scenario s(ClusterSpec::homogeneous(1, 4));
  s.add(4, 1000);  // arrived first, longer
  s.add(4, 100);   // shorter
  auto out = s.run("srtf");
  EXPECT_TRUE(out[0].empty());
  EXPECT_EQ(out[1], (Placement{{0, 4}}));
}

TEST(Srtf, ShorterNewcomerPreemptsLongerRunningJob) {
  Scenario s(ClusterSpec::homogeneous(2, 4));
  s.add(4, 5000, {{0, 4}});  // running, long
  s.add(4, 300, {{1, 4}});   // running, short
  s.add(4, 50);              // newcomer, shortest
  auto out = s.run("srtf");
  EXPECT_TRUE(out[0].empty());             // preempted
  EXPECT_EQ(out[1], (Placement{{1, 4}}));  // keeps its server
  EXPECT_EQ(out[2], (Placement{{0, 4}}));
}

TEST(Srtf, LongerNewcomerDoesNotPreempt) {
  Scenario s(ClusterSpec::homogeneous(1, 4));
  s.add(2, 100, {{0, 2}});
  s.add(4, 50000);
  s.add(2, 200);
  auto out = s.run("srtf");
  EXPECT_EQ(out[0], (Placement{{0, 2}}));
  EXPECT_TRUE(out[1].empty());
  EXPECT_EQ(out[2], (Placement{{0, 2}}));  // skips the long job that does not fit
}

TEST(Srtf, NeedsAnOracle) {
  Scenario s(ClusterSpec::homogeneous(1, 4));
  s.add(1, 10);
  s.views[0].oracle = nullptr;
  EXPECT_THROW(s.run("srtf"), Error);
}

// ---- DRF ----

TEST(Drf, EqualisesDominantSharesAsInThePaper) {
  // The DRF paper's example (section 4): 9 CPUs and 18 GB; A's tasks need <1 CPU, 4 GB>, B's
  // <3 CPUs, 1 GB>. GPUs are plentiful here, so CPU and memory decide: A gets 3 tasks, B 2, and
  // both have a dominant share of 2/3 (A: memory 12/18, B: CPU 6/9).
  Scenario s(one_server(100, 9, 18));
  s.add(100, 1000, {}, 1.0, 4.0);
  s.add(100, 1000, {}, 3.0, 1.0);
  auto out = s.run("drf");
  EXPECT_EQ(placement_gpus(out[0]), 3);
  EXPECT_EQ(placement_gpus(out[1]), 2);
  const double share_a = std::max(3 * 1.0 / 9, 3 * 4.0 / 18), share_b = std::max(2 * 3.0 / 9, 2 * 1.0 / 18);
  EXPECT_DOUBLE_EQ(share_a, 2.0 / 3);
  EXPECT_DOUBLE_EQ(share_b, 2.0 / 3);
}

TEST(Drf, CpuHeavyJobGetsFewerGpus) {
  // 12 GPUs, 48 CPUs: A needs 2 CPUs per GPU (GPU-dominant, 1/12 per task), B needs 8 (CPU-dominant,
  // 1/6 per task). Equal dominant shares: A gets twice B's tasks; A 8 GPUs + B 4 GPUs use 16 + 32 =
  // 48 CPUs and all 12 GPUs, with dominant shares 8/12 = 32/48.
  Scenario s(one_server(12, 48, 1000));
  s.add(12, 1000, {}, 2.0, 1.0);
  s.add(12, 1000, {}, 8.0, 1.0);
  auto out = s.run("drf");
  EXPECT_EQ(placement_gpus(out[0]), 8);
  EXPECT_EQ(placement_gpus(out[1]), 4);
}

TEST(Drf, ElasticSharesAndStablePlacements) {
  Scenario s(ClusterSpec::homogeneous(2, 4));
  s.add(8, 1000);
  s.add(8, 1000);
  s.add(1, 1000);
  auto out = s.run("drf");
  // Equal dominant shares on GPUs, capped by the request: 1 for the small job, the rest split.
  EXPECT_EQ(placement_gpus(out[2]), 1);
  EXPECT_EQ(placement_gpus(out[0]) + placement_gpus(out[1]), 7);
  EXPECT_LE(std::abs(placement_gpus(out[0]) - placement_gpus(out[1])), 1);
  // Next round with the same jobs: nobody's share changes, nobody moves.
  for (size_t i = 0; i < s.views.size(); ++i) s.views[i].placement = out[i];
  auto again = s.run("drf");
  EXPECT_EQ(again, out);
}

// ---- Tetris ----

TEST(Tetris, PacksComplementaryJobsOnTheSameServer) {
  // Two servers of 4 GPUs, 32 CPUs, 128 GB. A CPU-heavy job runs on server 0 (2 GPUs, 28 CPUs).
  // Waiting: M (memory-heavy, arrived first) and C (CPU-heavy). C only fits on server 1; Tetris
  // packs it there first (best alignment) and puts M next to the CPU-heavy job on server 0,
  // whose free memory M's demand aligns with.
  ClusterSpec c = ClusterSpec::homogeneous(2, 4);
  for (auto& sv : c.servers) {
    sv.cpus = 32;
    sv.mem_gb = 128;
  }
  Scenario s(c);
  s.add(2, 1000, {{0, 2}}, 14.0, 4.0);  // running, CPU-heavy
  s.add(2, 1000, {}, 1.0, 48.0);        // M
  s.add(2, 1000, {}, 12.0, 8.0);        // C
  auto out = s.run("tetris");
  EXPECT_EQ(out[0], (Placement{{0, 2}}));
  EXPECT_EQ(out[1], (Placement{{0, 2}}));
  EXPECT_EQ(out[2], (Placement{{1, 2}}));
  // FIFO, by contrast, looks at GPUs only and puts M (first in line) on the emptier server.
  auto fifo = s.run("fifo", [] {
    PolicyOptions o;
    o.placement = PlacementKind::MostFree;
    return o;
  }());
  EXPECT_EQ(fifo[1], (Placement{{1, 2}}));
}

TEST(Tetris, PrefersLessRemainingWork) {
  Scenario s(ClusterSpec::homogeneous(1, 4));
  s.add(4, 5000);
  s.add(4, 100);
  auto out = s.run("tetris");
  EXPECT_TRUE(out[0].empty());
  EXPECT_EQ(out[1], (Placement{{0, 4}}));
  PolicyOptions o;
  o.params["tetris.epsilon"] = "0";  // packing alone: a tie, broken by arrival
  auto packing_only = s.run("tetris", o);
  EXPECT_EQ(packing_only[0], (Placement{{0, 4}}));
  EXPECT_TRUE(packing_only[1].empty());
}

TEST(Tetris, FairnessKnobRestrictsToLongestWaiting) {
  Scenario s(ClusterSpec::homogeneous(1, 4));
  s.add(4, 5000);  // waited longest
  s.add(4, 100);
  s.add(4, 100);
  PolicyOptions o;
  o.params["tetris.fairness"] = "0.9";  // ceil(0.1 * 3) = 1 eligible job: the longest waiting
  auto out = s.run("tetris", o);
  EXPECT_EQ(out[0], (Placement{{0, 4}}));
  EXPECT_TRUE(out[1].empty());
  o.params["tetris.fairness"] = "0.5";  // ceil(0.5 * 3) = 2 eligible: job 1 wins on remaining work
  out = s.run("tetris", o);
  EXPECT_TRUE(out[0].empty());
  EXPECT_EQ(out[1], (Placement{{0, 4}}));
  o.params["tetris.fairness"] = "1.5";
  EXPECT_THROW(s.run("tetris", o), Error);
}

TEST(Tetris, GangAcrossServersWhenNoServerIsLargeEnough) {
  Scenario s(ClusterSpec::homogeneous(3, 4));
  s.add(1, 100, {{0, 1}});
  s.add(8, 100);
  auto out = s.run("tetris");
  EXPECT_EQ(placement_gpus(out[1]), 8);
  EXPECT_EQ(out[1].size(), 2u);  // consolidated on the two empty servers
  EXPECT_EQ(out[0], (Placement{{0, 1}}));
}

TEST(Tetris, NeverPreempts) {
  Scenario s(ClusterSpec::homogeneous(1, 4));
  s.add(4, 100000, {{0, 4}});
  s.add(1, 1);
  auto out = s.run("tetris");
  EXPECT_EQ(out[0], (Placement{{0, 4}}));
  EXPECT_TRUE(out[1].empty());
}

// ---- End to end through the simulator ----

double average_jct_s(const SimResult& r) {
  double sum = 0;
  for (const auto& j : r.jobs) sum += j.jct_s();
  return sum / r.jobs.size();
}

SimResult simulate_policy(const std::string& policy, const Workload& w, const ClusterSpec& c) {
  auto p = make_policy(policy, {});
  SimConfig config;
  config.data_dir = std::string(DMLKIT_SOURCE_DIR) + "/data";
  return simulate(c, w, policy, *p, config);
}

TEST(Baselines, EveryJobOfABundledWorkloadFinishes) {
  WorkloadOptions o;
  o.data_dir = std::string(DMLKIT_SOURCE_DIR) + "/data";
  const Workload w = load_workload("pollux-6", o);
  const ClusterSpec c = ClusterSpec::homogeneous(16, 4);
  std::map<std::string, double> jct;
  for (const char* policy : {"fifo", "srtf", "drf", "tetris"}) {
    SimResult r = simulate_policy(policy, w, c);  // the simulator validates every decision
    EXPECT_FALSE(r.timed_out) << policy;
    for (const auto& j : r.jobs) EXPECT_TRUE(j.finished()) << policy << " " << j.name;
    if (std::string(policy) == "fifo" || std::string(policy) == "tetris") {
      for (const auto& j : r.jobs) EXPECT_EQ(j.preemptions, 0) << policy;
    }
    jct[policy] = average_jct_s(r);
  }
  // The clairvoyant, preemptive SRTF beats FIFO's head-of-line blocking by far on this mix.
  EXPECT_LT(jct["srtf"] * 2, jct["fifo"]);
  EXPECT_LT(jct["drf"], jct["fifo"]);
}

TEST(Baselines, SyntheticTraceOnAHeterogeneousCluster) {
  SyntheticSpec spec;
  spec.num_jobs = 300;
  spec.arrival_rate_per_s = 1.0 / 60;
  const Workload w = synthetic_workload(spec, 11);
  ClusterSpec c = ClusterSpec::homogeneous(4, 8);
  c.servers.push_back(c.servers[0]);
  c.servers.back().id = 4;
  c.servers.back().gpus = 2;
  for (const char* policy : {"fifo", "srtf", "drf", "tetris"}) {
    SimResult r = simulate_policy(policy, w, c);
    EXPECT_FALSE(r.timed_out) << policy;
    for (const auto& j : r.jobs) EXPECT_TRUE(j.finished()) << policy << " " << j.name;
  }
}

}  // namespace
}  // namespace dmlkit::cluster
