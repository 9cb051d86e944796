// The tiresias-sim profile (the Tiresias authors' simulator's semantics and defaults, on their
// bundled 60-job trace) and policy wake-ups (Policy::next_wakeup_s) in the event-driven loop.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "core/error.h"
#include "trace_job.h"

namespace dmlkit::cluster {
namespace {

const std::string kTiresiasData = std::string(DMLKIT_SOURCE_DIR) + "/data";

PolicyOptions authors_options() {
  PolicyOptions o;
  o.profile = "tiresias-sim";
  o.placement = PlacementKind::FirstFit;  // what the CLI picks for the profile
  return o;
}

Workload tiresias_60() {
  WorkloadOptions wo;
  wo.data_dir = kTiresiasData;
  wo.cluster_gpus = 64;
  return load_workload("tiresias-60", wo);
}

SimResult run_tiresias_sim(const Workload& w, const ClusterSpec& cluster, const std::string& policy,
                           const PolicyOptions& popts, const SimConfig& config) {
  auto p = make_policy(policy, popts);
  return simulate(cluster, w, policy, *p, config);
}

TEST(TiresiasSim, ReadsTheAuthorsTraceFormatByName) {
  const Workload w = tiresias_60();
  ASSERT_EQ(w.jobs.size(), 60u);
  EXPECT_EQ(w.name, "tiresias-60");
  // First row: 0,1,0,606,vgg19,164,30; second: 1,8,30,133,vgg11,147,23.
  EXPECT_EQ(w.jobs[0].name, "0");
  EXPECT_EQ(w.jobs[0].num_gpus, 1);
  EXPECT_DOUBLE_EQ(w.jobs[0].arrival_s, 0);
  EXPECT_DOUBLE_EQ(w.jobs[0].duration_s, 164);
  EXPECT_EQ(w.jobs[0].application, "vgg19");
  EXPECT_EQ(w.jobs[0].kind, WorkKind::FixedDuration);
  EXPECT_EQ(w.jobs[1].num_gpus, 8);
  EXPECT_DOUBLE_EQ(w.jobs[1].arrival_s, 30);
  EXPECT_DOUBLE_EQ(w.jobs[1].duration_s, 147);
}

TEST(TiresiasSim, RejectsABadRowNamingLineAndField) {
  const std::string path = (std::filesystem::temp_directory_path() / "dmlkit_tiresias_bad.csv").string();
  {
    std::ofstream f(path);
    f << "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
      << "0,1,0,606,vgg19,164,30\n"
      << "1,zero,30,133,vgg11,147,23\n";
  }
  try {
    load_workload(path, WorkloadOptions{});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(":3"), std::string::npos) << what;
    EXPECT_NE(what.find("num_gpu"), std::string::npos) << what;
  }
  std::remove(path.c_str());
}

TEST(TiresiasSim, ProfileConfigHasNoRoundsAndNoRestartCost) {
  const SimConfig c = tiresias_sim_config();
  EXPECT_EQ(c.profile, SimProfile::TiresiasSim);
  EXPECT_EQ(c.round_s, std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.restart_delay_s, 0);
  EXPECT_FALSE(c.charge_first_start);
  EXPECT_TRUE(c.schedule_on_events);
}

// The figures measured on the authors' simulator (data/tiresias/SOURCE.md): 16 nodes x 4 GPUs,
// `dlas` (3 queues, limits 3250 and 7200 s, no promotion; the profile's defaults), placement by
// count: average JCT 178.42 s, median 125.0 s, makespan 3271 s, no preemption; `fifo` the same.
// The cluster is lightly loaded: every job runs from its arrival, so each JCT is its duration.
TEST(TiresiasSim, ReproducesTheAuthorsFiguresOnTheir60JobTrace) {
  const Workload w = tiresias_60();
  for (const std::string policy : {"tiresias", "fifo"}) {
    SCOPED_TRACE(policy);
    const SimResult r =
        run_tiresias_sim(w, ClusterSpec::homogeneous(16, 4), policy, authors_options(), tiresias_sim_config());
    const Metrics m = compute_metrics(r);
    EXPECT_EQ(m.finished, 60u);
    EXPECT_NEAR(m.avg_jct_s, 178.42, 0.005);
    EXPECT_DOUBLE_EQ(m.median_jct_s, 125.0);
    EXPECT_DOUBLE_EQ(m.makespan_s, 3271);
    EXPECT_EQ(m.preemptions, 0);
    for (const JobRecord& j : r.jobs) {
      EXPECT_DOUBLE_EQ(j.jct_s(), w.jobs[j.id].duration_s) << j.name;
      EXPECT_EQ(j.preemptions, 0) << j.name;
    }
  }
  // The authors' dlas-gpu and dlas-gpu-2 (service=gpu-time, promotion 2) give the same figures.
  PolicyOptions gpu = authors_options();
  gpu.params["tiresias.service"] = "gpu-time";
  gpu.params["tiresias.promote_knob"] = "2";
  const Metrics m =
      compute_metrics(run_tiresias_sim(w, ClusterSpec::homogeneous(16, 4), "tiresias", gpu, tiresias_sim_config()));
  EXPECT_NEAR(m.avg_jct_s, 178.42, 0.005);
  EXPECT_EQ(m.preemptions, 0);
}

// dmlkit's own defaults are not the authors': a 30 s restart delay charged also on a first start
// (and, for tiresias, GPU-time service with promotion knob 2). On the same trace every job pays
// the delay once: the average JCT is 30 s (17%) higher.
TEST(TiresiasSim, DefaultProfileChargesTheFirstStart) {
  const Workload w = tiresias_60();
  const Metrics m =
      compute_metrics(run_tiresias_sim(w, ClusterSpec::homogeneous(16, 4), "tiresias", PolicyOptions{}, SimConfig{}));
  EXPECT_NEAR(m.avg_jct_s, 178.42 + 30, 0.005);
}

// A loaded case worked out by hand from the authors' dlas_sim_jobs (run_sim.py): one 4-GPU server.
// A (4 GPUs, 5000 s) runs from 0; B (4 GPUs, 100 s) arrives at 10 and waits in queue 0 behind A.
// The next "job jump" is A's demotion at 3250 s of executed time: A drops to queue 1, B (queue 0)
// preempts it and runs 3250..3350; A resumes with 1750 s left and ends at 5100. C (1 GPU, 20 s)
// arriving at 4000 fits beside nothing (A holds all 4 GPUs) and waits in queue 0 ahead of A: it
// preempts A at its arrival (queue 0 before queue 1), runs 4000..4020, and A ends at 5120.
TEST(TiresiasSim, MatchesTheAuthorsDlasOnAHandWorkedCase) {
  Workload w;
  w.jobs = {trace_job(0, 0, 4, 5000), trace_job(1, 10, 4, 100), trace_job(2, 4000, 1, 20)};
  const SimResult r =
      run_tiresias_sim(w, ClusterSpec::homogeneous(1, 4), "tiresias", authors_options(), tiresias_sim_config());
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 3250);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 3350);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start_s, 4000);
  EXPECT_DOUBLE_EQ(r.jobs[2].finish_s, 4020);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 5120);
  EXPECT_EQ(r.jobs[0].preemptions, 2);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
}

// GPU-time service (their dlas-gpu) on one 8-GPU server: A (8 GPUs, 2000 s) from 0, B (8 GPUs,
// 100 s) arriving at 10. A reaches 3250 GPU-s at 406.25 s. The authors' next_job_jump after B's
// arrival is 10 + floor((3250 - 10 executed seconds) / 8) = 415 (Python 2 division; the ceil()
// around it is a no-op), so their simulator demotes A, and starts B, at 415; `whole-s` (what their
// code intends) at 407; `exact` at 406.25. A always ends at 2100 (no restart cost).
TEST(TiresiasSim, GpuTimeWakeupFollowsTheAuthorsArithmetic) {
  Workload w;
  w.jobs = {trace_job(0, 0, 8, 2000), trace_job(1, 10, 8, 100)};
  for (const auto& [mode, start] :
       std::vector<std::pair<std::string, double>>{{"authors", 415}, {"whole-s", 407}, {"exact", 406.25}}) {
    SCOPED_TRACE(mode);
    PolicyOptions o = authors_options();
    o.params["tiresias.service"] = "gpu-time";
    if (mode != "authors") o.params["tiresias.wakeup"] = mode;
    const SimResult r = run_tiresias_sim(w, ClusterSpec::homogeneous(1, 8), "tiresias", o, tiresias_sim_config());
    EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, start);
    EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, start + 100);
    EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 2100);
    EXPECT_EQ(r.jobs[0].preemptions, 1);
  }
  // Without wake-ups and without rounds, the demotion is noticed only at the next event: A's own
  // completion at 2000 s, so B waits for it.
  PolicyOptions none = authors_options();
  none.params["tiresias.service"] = "gpu-time";
  none.params["tiresias.wakeup"] = "none";
  const SimResult r = run_tiresias_sim(w, ClusterSpec::homogeneous(1, 8), "tiresias", none, tiresias_sim_config());
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 2000);
  EXPECT_EQ(r.jobs[0].preemptions, 0);
  PolicyOptions bad = authors_options();
  bad.params["tiresias.wakeup"] = "sometimes";
  EXPECT_THROW(make_policy("tiresias", bad), Error);
}

// A policy that wants to start its jobs only at a given time, and says so through next_wakeup_s.
class StartAtPolicy final : public Policy {
 public:
  explicit StartAtPolicy(double at_s) : at_s_(at_s) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    for (size_t i = 0; i < jobs.size(); ++i)
      if (view.now_s >= at_s_ && !jobs[i].running()) out[i] = {{0, jobs[i].job->num_gpus}};
  }
  double next_wakeup_s(const ClusterView& view, std::span<const JobView>) const override {
    return view.now_s < at_s_ ? at_s_ : std::numeric_limits<double>::infinity();
  }

 private:
  double at_s_;
};

TEST(PolicyWakeup, TheEventLoopDecidesAtTheRequestedTime) {
  Workload w;
  w.jobs = {trace_job(0, 0, 1, 10)};
  StartAtPolicy policy(37.5);
  SimConfig c;
  c.restart_delay_s = 0;
  c.round_s = 60;  // the wake-up falls between rounds
  SimResult r = simulate(ClusterSpec::homogeneous(1, 4), w, "start-at", policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start_s, 37.5);
  // With no rounds at all, the wake-up is the only decision that starts the job.
  c.round_s = std::numeric_limits<double>::infinity();
  r = simulate(ClusterSpec::homogeneous(1, 4), w, "start-at", policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start_s, 37.5);
  // Time-slotted runs (no event re-planning) keep to the rounds.
  c.round_s = 60;
  c.schedule_on_events = false;
  r = simulate(ClusterSpec::homogeneous(1, 4), w, "start-at", policy, c);
  EXPECT_DOUBLE_EQ(r.jobs[0].first_start_s, 60);
}

TEST(PolicyWakeup, DefaultIsNever) {
  auto p = make_policy("fifo", PolicyOptions{});
  ClusterSpec cluster = ClusterSpec::homogeneous(1, 4);
  ClusterView view;
  view.cluster = &cluster;
  view.now_s = 5;
  view.round_s = 60;
  EXPECT_EQ(p->next_wakeup_s(view, {}), std::numeric_limits<double>::infinity());
}

// Tiresias wakes itself at each demotion and promotion, so its decisions no longer depend on the
// round length. Workload: on 2 servers x 4 GPUs, jobs of 1-8 GPUs with arrivals and durations off
// the 60 s grid, so that demotions (3250 GPU-s: 812.5 s for 4 GPUs, 406.25 s for 8, 1625 s for 2)
// and promotions (knob 2) fall between rounds. With the default restart delay of 30 s (charged on
// the first start too) and GPU-time service: 60 s and 1 s rounds give the same per-job JCTs and
// preemptions (up to floating-point rounding of the run's stretches: 1e-6 s). Without wake-ups, a
// 60 s round noticed a demotion up to 60 s late (and a 1 s round up to 1 s late), so JCTs differed
// by tens of seconds. Between events, round decisions change nothing: Tiresias keeps every
// placement while no threshold is crossed, so no extra restart delay is paid.
TEST(TiresiasWakeup, SixtySecondAndOneSecondRoundsGiveTheSameJcts) {
  Workload w;
  w.jobs = {trace_job(0, 0, 4, 2000),      trace_job(1, 7, 4, 1500),     trace_job(2, 13.5, 8, 900),
            trace_job(3, 101, 2, 2600),    trace_job(4, 333.3, 1, 4100), trace_job(5, 517, 4, 700),
            trace_job(6, 1234.5, 8, 1300), trace_job(7, 1999, 2, 350),   trace_job(8, 2500.25, 1, 60)};
  for (size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = static_cast<int>(i);
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 4);
  SimConfig c60;
  c60.round_s = 60;
  SimConfig c1 = c60;
  c1.round_s = 1;
  const SimResult r60 = run_tiresias_sim(w, cluster, "tiresias", PolicyOptions{}, c60);
  const SimResult r1 = run_tiresias_sim(w, cluster, "tiresias", PolicyOptions{}, c1);
  int preemptions = 0;
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    ASSERT_TRUE(r60.jobs[i].finished() && r1.jobs[i].finished());
    EXPECT_NEAR(r60.jobs[i].jct_s(), r1.jobs[i].jct_s(), 1e-6) << r60.jobs[i].name;
    EXPECT_EQ(r60.jobs[i].preemptions, r1.jobs[i].preemptions) << r60.jobs[i].name;
    preemptions += r60.jobs[i].preemptions;
  }
  EXPECT_GT(preemptions, 0);  // the case does exercise demotions
}

}  // namespace
}  // namespace dmlkit::cluster
