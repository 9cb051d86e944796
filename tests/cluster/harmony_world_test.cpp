// Harmony's world (docs/harmony.md): the interference models on hand-built co-locations, the
// simulator's use of them (factors refreshed at a neighbour's finish), the placement-only base and
// its baselines (capacity, never moving a job, the paper's "packing is not always best" case), bad
// inputs (one line, exit 2) and a preset's determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "cluster/model/harmony_job.h"
#include "cluster/policies/placement/placement_policy.h"
#include "cluster/policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "cluster/speed/interference.h"
#include "cluster/speed/ps_speed.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "core/error.h"
#include "test_files.h"

namespace dmlkit::cluster {
namespace {

const std::string kWorldData = std::string(DMLKIT_SOURCE_DIR) + "/data";
const std::string kWorldExperiments = std::string(DMLKIT_SOURCE_DIR) + "/experiments";

// Two resources, capacity 1 each: a uses 0.6 of r0, b 0.5 of r1, c 0.3 of both; PSs use 0.1 of r0.
ContentionProfiles toy_profiles() {
  ContentionProfiles p;
  p.resources = {"r0", "r1"};
  p.capacity = {1.0, 1.0};
  p.classes = {"a", "b", "c"};
  p.worker = {{0.6, 0.0}, {0.0, 0.5}, {0.3, 0.3}};
  p.ps = {{0.1, 0.0}, {0.1, 0.0}, {0.1, 0.0}};
  return p;
}

TEST(HarmonyInterference, ContentionSharesAnOversubscribedResource) {
  const ContentionInterference m(toy_profiles());
  InterferenceScratch scratch;
  std::vector<double> w(3), p(3);
  // a + c: r0 at 0.9, r1 at 0.3 -- within capacity, nobody slows down.
  std::vector<TaskGroup> fit = {{0, 0, 1, 0}, {1, 2, 1, 0}};
  m.server_factors(fit, w, p, scratch);
  EXPECT_DOUBLE_EQ(w[0], 1.0);
  EXPECT_DOUBLE_EQ(w[1], 1.0);
  // 2 a + c + 1 PS: r0 asks 1.2 + 0.3 + 0.1 = 1.6, so every r0 user gets 1/1.6; b (r1 only) is
  // untouched while r1 is at 0.8.
  std::vector<TaskGroup> over = {{0, 0, 2, 1}, {1, 2, 1, 0}, {2, 1, 1, 0}};
  m.server_factors(over, w, p, scratch);
  EXPECT_DOUBLE_EQ(w[0], 1.0 / 1.6);
  EXPECT_DOUBLE_EQ(p[0], 1.0 / 1.6);
  EXPECT_DOUBLE_EQ(w[1], 1.0 / 1.6);
  EXPECT_DOUBLE_EQ(w[2], 1.0);
}

TEST(HarmonyInterference, JobFactorIsSlowestTaskForSyncAndMeanForAsync) {
  const ContentionInterference m(toy_profiles());
  InterferenceScratch scratch;
  Colocation c;
  c.reset(2);
  // Job 0 (sync, type a): 2 workers on server 0 (r0 at 1.2 -> 1/1.2), 1 worker on server 1 (alone).
  c.add(0, {0, 0, 2, 0, true});
  c.add(1, {0, 0, 1, 0, true});
  // Job 1 (async, type a): 1 worker on server 1 next to job 0's (r0 at 1.2 -> 1/1.2) and 1 PS on
  // server 0 (r0 at 1.3 with it -> recomputed below).
  c.add(1, {1, 0, 1, 0, false});
  std::vector<double> f(2, -1.0);
  m.job_factors(c, f, scratch);
  EXPECT_DOUBLE_EQ(f[0], 1.0 / 1.2);  // server 1 also at 1.2 now: min over both servers
  EXPECT_DOUBLE_EQ(f[1], 1.0 / 1.2);
  c.add(0, {1, 0, 0, 1, false});  // job 1's PS on server 0: r0 at 1.3 there
  m.job_factors(c, f, scratch);
  EXPECT_DOUBLE_EQ(f[0], 1.0 / 1.3);
  EXPECT_DOUBLE_EQ(f[1], (1.0 / 1.2 + 1.0 / 1.3) / 2);  // mean over its two tasks
}

TEST(HarmonyInterference, GavelMultipliesMeasuredPairRatiosBetweenJobsWithWorkers) {
  const GavelInterference m({"a", "b"}, {{0.9, 0.5}, {0.8, 1.0}});
  InterferenceScratch scratch;
  std::vector<double> w(3), p(3);
  std::vector<TaskGroup> g = {{0, 0, 2, 1}, {1, 1, 1, 0}, {2, 0, 1, 0}};
  m.server_factors(g, w, p, scratch);
  EXPECT_DOUBLE_EQ(w[0], 0.5 * 0.9);  // a with b and with the other a
  EXPECT_DOUBLE_EQ(w[1], 0.8 * 0.8);  // b with two a's
  EXPECT_DOUBLE_EQ(w[2], 0.9 * 0.5);
  EXPECT_DOUBLE_EQ(p[0], 1.0);  // PSs are not GPU users
  // A job with only PSs on the server slows nobody.
  std::vector<TaskGroup> ps_only = {{0, 0, 1, 0}, {1, 1, 0, 2}};
  m.server_factors(ps_only, w, p, scratch);
  EXPECT_DOUBLE_EQ(w[0], 1.0);
}

TEST(HarmonyInterference, BundledModelsKnowEveryHarmonyType) {
  for (const char* name : {"contention", "gavel"}) {
    const auto m = make_interference_model(name, kWorldData);
    ASSERT_NE(m, nullptr);
    for (const auto& t : harmony_job_types()) EXPECT_GE(m->class_of(t.name), 0) << name << " " << t.name;
  }
  EXPECT_EQ(make_interference_model("none", kWorldData), nullptr);
  EXPECT_THROW(make_interference_model("bogus", kWorldData), Error);
  const auto g = load_gavel_interference(kWorldData + "/harmony/gavel-mapping.yaml");
  for (size_t a = 0; a < harmony_job_types().size(); ++a)
    for (size_t b = 0; b < harmony_job_types().size(); ++b) {
      EXPECT_GT(g->ratio(static_cast<int>(a), static_cast<int>(b)), 0.0);
      EXPECT_LE(g->ratio(static_cast<int>(a), static_cast<int>(b)), 1.0);
    }
}

TEST(HarmonyInterference, BadContentionFileNamesFileAndField) {
  dmlkit::testing::TempDir dir("harmony-bad");
  const std::string f = dir.write("c.yaml", "resources: [cpu]\ncapacity: {cpu: 1}\ntypes:\n  ctc:\n    worker: {cpu: -1}\n");
  try {
    load_contention_profiles(f);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("c.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("ctc.worker.cpu"), std::string::npos) << what;
  }
  const std::string g = dir.write("g.yaml", "resources: [cpu]\ncapacity: {cpu: 1}\ntypes:\n  ctc:\n    worker: {gpu: 1}\n");
  EXPECT_THROW(load_contention_profiles(g), Error);
}

// ---- the simulator with interference --------------------------------------------------------

Job harmony_job(int id, const std::string& type, double epochs, int ps, int workers, double arrival_s = 0) {
  Job j;
  j.id = id;
  j.name = "j" + std::to_string(id) + "-" + type;
  j.arrival_s = arrival_s;
  fill_harmony_job(j, find_harmony_job_type(type), epochs, ps, workers, PsTrainingMode::Sync, 0.01, 0.05, 7 + id);
  j.source_file = "test";
  j.source_line = id + 1;
  return j;
}

SimConfig world_config(const std::string& interference) {
  SimConfig c;
  c.round_s = 1e6;  // one decision at the start: finishes change speeds without a decision
  c.restart_delay_s = 0;
  c.schedule_on_events = false;
  c.data_dir = kWorldData;
  c.ps_speed = make_ps_speed_model("analytic", kWorldData);
  c.interference = make_interference_model(interference, kWorldData);
  return c;
}

SimResult run_world(const ClusterSpec& cluster, const Workload& w, const std::string& policy, const std::string& interf) {
  auto p = make_policy(policy, {});
  return simulate(cluster, w, policy, *p, world_config(interf));
}

TEST(HarmonyWorld, NeighbourFinishSpeedsUpTheOtherJob) {
  // One server, two ctc jobs of 2 workers + 1 PS: CPU asks 4 x 0.35 + 2 x 0.05 = 1.5 (bundled
  // profiles), so both run at 1/1.5 while together; alone a job asks 0.75 and runs at full speed.
  // Job 1 has half the epochs: it ends at 0.75 T (T = a job's time alone), job 0 then has half its
  // epochs left and ends at 0.75 T + 0.5 T.
  const ClusterSpec cluster = ClusterSpec::homogeneous(1, 4);
  Workload w;
  w.jobs = {harmony_job(0, "ctc", 100, 1, 2), harmony_job(1, "ctc", 50, 1, 2)};
  Workload alone;
  alone.jobs = {harmony_job(0, "ctc", 100, 1, 2)};
  const double T = run_world(cluster, alone, "bin-packing", "contention").jobs[0].jct_s();
  ASSERT_GT(T, 0);
  const SimResult none = run_world(cluster, w, "bin-packing", "none");
  EXPECT_NEAR(none.jobs[0].jct_s(), T, 1e-6 * T);
  EXPECT_NEAR(none.jobs[1].jct_s(), 0.5 * T, 1e-6 * T);
  const SimResult r = run_world(cluster, w, "bin-packing", "contention");
  EXPECT_NEAR(r.jobs[1].jct_s(), 0.75 * T, 1e-6 * T);
  EXPECT_NEAR(r.jobs[0].jct_s(), 1.25 * T, 1e-6 * T);
}

TEST(HarmonyWorld, PackingIsNotAlwaysBestResNeXtNextToCtc) {
  // The paper's case (second-pass.md 3.2): ResNeXt co-located with CTC runs better under load
  // balancing than under packing. CTC (3 workers + 1 PS) arrives first; bin packing then puts the
  // ResNeXt job on CTC's server (CPU oversubscribed), load balancing on the empty one.
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 4);
  Workload w;
  w.jobs = {harmony_job(0, "ctc", 400, 1, 3), harmony_job(1, "resnext-110", 50, 1, 1)};
  const SimResult packed = run_world(cluster, w, "bin-packing", "contention");
  const SimResult spread = run_world(cluster, w, "lb", "contention");
  EXPECT_LT(spread.jobs[1].jct_s(), 0.95 * packed.jobs[1].jct_s());
  // Without interference the two placements give the ResNeXt job the same speed (1 worker + 1 PS
  // on one server either way).
  EXPECT_NEAR(run_world(cluster, w, "lb", "none").jobs[1].jct_s(),
              run_world(cluster, w, "bin-packing", "none").jobs[1].jct_s(), 1e-9);
}

const std::vector<std::string> kBaselines = {"lb", "tetris-align", "lif-line", "bin-packing", "standalone"};

TEST(HarmonyWorld, BaselinesRespectCapacityPlaceOnceAndFinish) {
  // A tight cluster (2 servers) and 12 jobs: most wait. The simulator validates every decision
  // against CPU, GPU, memory and bandwidth (it throws on a task placed without room).
  const ClusterSpec cluster = ClusterSpec::parse(kWorldExperiments + "/clusters/harmony-6.yaml");
  ClusterSpec small = cluster;
  small.servers.resize(2);
  PsWorkloadSpec s;
  s.catalogue = "harmony";
  s.num_jobs = 12;
  s.arrivals = "window";
  s.window_slots = 2;
  s.slot_s = 600;
  s.max_num_epochs = 20;
  s.user_workers_min = 1;
  s.user_workers_max = 4;
  s.user_ps_per_worker = 0.5;
  const Workload w = ps_workload(s, 5, kWorldData);
  for (const auto& name : kBaselines)
    for (const char* interf : {"none", "contention", "gavel"}) {
      SimConfig c = world_config(interf);
      c.round_s = 600;
      auto p = make_policy(name, {});
      const SimResult r = simulate(small, w, name, *p, c);
      EXPECT_FALSE(r.timed_out) << name << " " << interf;
      for (const auto& j : r.jobs) {
        EXPECT_TRUE(j.finished()) << name << " " << j.name;
        EXPECT_EQ(j.restarts, 1) << name << " " << j.name << ": placed once, never moved";
      }
    }
}

TEST(HarmonyWorld, PlacementStateMasksFullServers) {
  // One 4-GPU server: a job of 4 workers fills its GPUs; no policy's add_task can then place a
  // fifth worker of another job there.
  const ClusterSpec cluster = ClusterSpec::homogeneous(1, 4);
  Workload w;
  w.jobs = {harmony_job(0, "resnet-50", 10, 1, 4), harmony_job(1, "resnet-50", 10, 1, 1)};
  std::vector<JobView> views(2);
  views[0].job = &w.jobs[0];
  views[1].job = &w.jobs[1];
  PlacementState st;
  st.reset(cluster, views);
  ASSERT_TRUE(st.add_task(0, TaskRole::Ps, 0));
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(st.add_task(0, TaskRole::Worker, 0));
  EXPECT_TRUE(st.complete(0));
  EXPECT_FALSE(st.add_task(0, TaskRole::Worker, 0)) << "more workers than the user asked for";
  EXPECT_FALSE(st.fits(1, TaskRole::Worker, 0));
  EXPECT_FALSE(st.add_task(1, TaskRole::Worker, 0));
  EXPECT_EQ(least_loaded_server(st, 1, TaskRole::Worker), -1);
  EXPECT_EQ(tightest_server(st, 1, TaskRole::Worker), -1);
  EXPECT_EQ(st.workers_on(0, 0), 4);
  EXPECT_EQ(st.ps_on(0, 0), 1);
  Placement p;
  st.placement_of(0, p);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].workers, 4);
  EXPECT_EQ(p[0].gpus, 4);
  st.remove_job(0);
  EXPECT_TRUE(st.fits(1, TaskRole::Worker, 0));
}

TEST(HarmonyPreset, TestbedRunIsDeterministicAndRecordsInterference) {
  Experiment e = load_experiment("harmony-testbed", kWorldExperiments);
  EXPECT_EQ(e.interference, "contention");
  e.seeds = {2};
  e.policies = {"lb", "standalone"};
  const auto a = run_experiment(e, kWorldData, {}, 2);
  const auto b = run_experiment(e, kWorldData, {}, 1);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].result.jobs.size(), b[i].result.jobs.size());
    for (size_t j = 0; j < a[i].result.jobs.size(); ++j) {
      EXPECT_EQ(a[i].result.jobs[j].finish_s, b[i].result.jobs[j].finish_s);
      EXPECT_TRUE(a[i].result.jobs[j].finished());
    }
  }
}

}  // namespace
}  // namespace dmlkit::cluster
