// Optimus (EuroSys'18) for parameter-server jobs: NNLS, the online speed and convergence models,
// greedy allocation, placement, and the headline outcome against DRF and Tetris.
#include <gtest/gtest.h>

#include <cmath>

#include "core/data_dir.h"
#include "cluster/workload/experiment.h"
#include "cluster/sim/metrics.h"
#include "cluster/policies/optimus/allocation.h"
#include "cluster/policies/optimus/convergence_fit.h"
#include "cluster/policies/optimus/nnls.h"
#include "cluster/policies/optimus/placement.h"
#include "cluster/policies/optimus/speed_fit.h"
#include "cluster/model/ps_job.h"
#include "cluster/speed/ps_speed.h"
#include "cluster/policies/factories.h"
#include "core/rng.h"

namespace dmlkit::cluster {
namespace {

TEST(Nnls, SolvesAKnownProblemAndKeepsSignsNonNegative) {
  Eigen::MatrixXd a(4, 2);
  a << 1, 0, 0, 1, 1, 1, 2, 1;
  Eigen::VectorXd b = a * Eigen::Vector2d(2.0, 3.0);
  Eigen::VectorXd x = nnls(a, b);
  EXPECT_NEAR(x(0), 2.0, 1e-9);
  EXPECT_NEAR(x(1), 3.0, 1e-9);
  // Unconstrained optimum has a negative coefficient: NNLS clamps it and refits the other.
  b = a * Eigen::Vector2d(2.0, -1.0);
  x = nnls(a, b);
  EXPECT_GE(x(1), 0.0);
  EXPECT_EQ(x(1), 0.0);
  EXPECT_NEAR(x(0), (a.col(0).dot(b)) / a.col(0).squaredNorm(), 1e-9);
}

// The sync model's true coefficients are recovered from noisy samples on a (p, w) grid. Tolerance:
// with 3% multiplicative noise on 25 samples the dominant coefficients come back within 15% and the
// predicted speeds within 5% (the model's own fit error on real data is 3-11%, spec 1.4(b)).
TEST(SpeedFit, RecoversKnownSyncCoefficientsFromNoisySamples) {
  PsJobSpec s;
  s.type = find_ps_job_type("inception-bn");
  const PsJobType& t = s.job_type();
  SpeedFit fit(PsTrainingMode::Sync, t.global_batch);
  Rng rng(42);
  for (int p = 1; p <= 9; p += 2)
    for (int w = 1; w <= 9; w += 2) fit.add(p, w, formula_samples_per_s(s, p, w) * (1 + rng.normal(0, 0.03)));
  ASSERT_TRUE(fit.fit());
  EXPECT_NEAR(fit.theta()[1], t.theta[1], 0.15 * t.theta[1]);
  EXPECT_NEAR(fit.theta()[2], t.theta[2], 0.15 * t.theta[2]);
  for (int p = 2; p <= 8; p += 2)
    for (int w = 2; w <= 8; w += 2) {
      const double truth = formula_samples_per_s(s, p, w);
      EXPECT_NEAR(fit.predict(p, w), truth, 0.05 * truth) << p << "," << w;
    }
}

TEST(SpeedFit, AsyncModelAndMeasuredPointsAndReadiness) {
  PsJobSpec s;
  s.type = find_ps_job_type("wlm");
  s.mode = PsTrainingMode::Async;
  SpeedFit fit(PsTrainingMode::Async, s.job_type().global_batch);
  fit.add(1, 1, formula_samples_per_s(s, 1, 1));
  fit.add(2, 1, formula_samples_per_s(s, 2, 1));
  fit.add(1, 3, formula_samples_per_s(s, 1, 3));
  EXPECT_FALSE(fit.fit());  // 4 distinct points needed
  fit.add(3, 2, formula_samples_per_s(s, 3, 2));
  fit.add(4, 4, formula_samples_per_s(s, 4, 4));
  ASSERT_TRUE(fit.fit());
  EXPECT_NEAR(fit.predict(6, 7), formula_samples_per_s(s, 6, 7), 1e-6 * formula_samples_per_s(s, 6, 7));
  fit.add(2, 2, 123.0);
  EXPECT_DOUBLE_EQ(fit.predict(2, 2), 123.0);  // a measured pair answers with its measurement
}

TEST(Convergence, RuleFiresAtTheBuiltEpochOnTheExactCurve) {
  for (int evals : {20, 40, 60, 90}) {
    PsJobSpec s;
    make_loss_curve(evals, 0.3, 0.0, 0.05, s);
    LossFit exact;
    exact.ok = true;
    exact.beta0 = s.loss_beta0;
    exact.beta1 = s.loss_beta1;
    exact.beta2 = s.loss_beta2;
    EXPECT_EQ(convergence_evaluation(exact, 0), evals);
    if (evals + 20 <= 100)
      EXPECT_EQ(convergence_evaluation(exact, evals + 30), evals + 20);  // starts at n - 10
    else
      EXPECT_EQ(convergence_evaluation(exact, evals + 30), -1);  // gives up past 100
  }
  LossFit flat;
  flat.ok = true;
  flat.beta1 = 1;
  EXPECT_EQ(convergence_evaluation(flat, 30), 20);
  LossFit slow;
  slow.ok = true;
  slow.beta0 = 1e-4;
  slow.beta1 = 1e-3;
  EXPECT_EQ(convergence_evaluation(slow, 5), -1);  // gives up past 100
}

TEST(Convergence, FitPredictsConvergenceFromPartialNoisyLosses) {
  PsJobSpec s;
  make_loss_curve(50, 0.4, 0.005, 0.05, s);
  Rng rng(3);
  std::vector<double> losses;
  for (int k = 1; k <= 30; ++k) losses.push_back(loss_curve(s, k) + rng.normal(0, 0.005));
  const LossFit f = fit_loss_curve(losses);
  ASSERT_TRUE(f.ok);
  const int e = convergence_evaluation(f, 30);
  EXPECT_GE(e, 40);
  EXPECT_LE(e, 60);
  EXPECT_FALSE(fit_loss_curve(std::vector<double>{1.0, 0.9}).ok);  // fewer than 3 points
}

// Allocation: never over capacity, every job starts at 1 PS + 1 worker, the next task goes to the
// largest marginal gain.
TEST(OptimusAllocation, StartsAtOneAndOneAndFollowsTheLargestGain) {
  std::vector<AllocJob> jobs(2);
  for (auto& j : jobs) {
    j.worker = TaskDemand{2, 1, 0, 0};
    j.ps = TaskDemand{2, 0, 0, 0};
    j.remaining = 100;
  }
  // Job 0 scales with workers, job 1 barely.
  auto speed = [](int j, int p, int w) { return j == 0 ? 1.0 * w * std::min(1.0, p / 2.0) : 1.0 + 0.01 * w; };
  const double cap[4] = {12, 4, 0, 0};
  std::vector<int> ps, wk;
  greedy_allocate(jobs, cap, speed, AllocOptions{}, ps, wk);
  EXPECT_GE(ps[1], 1);
  EXPECT_GE(wk[1], 1);
  EXPECT_EQ(ps[1] + wk[1], 2);  // job 1's gains are smaller than job 0's at every step
  double cpus = 0, gpus = 0;
  for (int j = 0; j < 2; ++j) {
    cpus += 2 * ps[j] + 2 * wk[j];
    gpus += wk[j];
  }
  EXPECT_LE(cpus, 12);
  EXPECT_LE(gpus, 4);
  // Job 0: a worker (gain 100) beats a PS (gain 50 per CPU), then again (33 vs 25); then the CPUs
  // are full and the walk stops.
  EXPECT_EQ(ps[0], 1);
  EXPECT_EQ(wk[0], 3);
}

TEST(OptimusAllocation, JobsThatDoNotFitWaitAndStopOnFirstFailSwitch) {
  std::vector<AllocJob> jobs(3);
  for (auto& j : jobs) {
    j.worker = TaskDemand{1, 1, 0, 0};
    j.ps = TaskDemand{1, 0, 0, 0};
    j.remaining = 10;
  }
  auto speed = [](int, int p, int w) { return std::min(p, w) * 1.0; };
  const double cap[4] = {4, 2, 0, 0};
  std::vector<int> ps, wk;
  greedy_allocate(jobs, cap, speed, AllocOptions{}, ps, wk);
  EXPECT_EQ(ps[0] + wk[0], 2);
  EXPECT_EQ(ps[1] + wk[1], 2);
  EXPECT_EQ(ps[2] + wk[2], 0);  // cluster full after two bundles
  // A job whose model is not ready stays at 1 + 1.
  jobs.resize(1);
  jobs[0].model_ready = false;
  const double big[4] = {100, 100, 0, 0};
  greedy_allocate(jobs, big, speed, AllocOptions{}, ps, wk);
  EXPECT_EQ(ps[0], 1);
  EXPECT_EQ(wk[0], 1);
}

ClusterSpec uniform_cluster(int n, double cpus, int gpus) {
  ClusterSpec c;
  for (int i = 0; i < n; ++i) {
    Server s;
    s.id = i;
    s.name = "s" + std::to_string(i);
    s.cpus = cpus;
    s.gpus = gpus;
    s.mem_gb = 100;
    s.net_gbps = 100;
    c.servers.push_back(s);
  }
  return c;
}

// Spec 7.3: a (p=2, w=4) job on empty servers with room for 3 tasks each uses 2 servers with
// 1 PS + 2 workers each.
TEST(OptimusPlacement, FewestServersAndBalancedTasks) {
  const ClusterSpec c = uniform_cluster(4, 3, 3);
  PsPool pool(c);
  PsJobSpec job;
  job.worker = TaskDemand{1, 1, 0, 0};
  job.ps = TaskDemand{1, 0, 0, 0};
  std::vector<const PsJobSpec*> jobs = {&job};
  std::vector<int> ps = {2}, wk = {4};
  std::vector<Placement> out;
  OptimusPlacer placer;
  placer.place(pool, jobs, ps, wk, {{}}, out);
  ASSERT_EQ(out[0].size(), 2u);
  for (const Slice& s : out[0]) {
    EXPECT_EQ(s.ps, 1);
    EXPECT_EQ(s.workers, 2);
    EXPECT_EQ(s.gpus, 2);
  }
  EXPECT_EQ(ps[0], 2);
  EXPECT_EQ(wk[0], 4);
}

TEST(OptimusPlacement, SmallJobsFirstPartialPlacementAndAvoidedServers) {
  const ClusterSpec c = uniform_cluster(2, 4, 4);
  PsPool pool(c);
  PsJobSpec job;
  job.worker = TaskDemand{1, 1, 0, 0};
  job.ps = TaskDemand{1, 0, 0, 0};
  std::vector<const PsJobSpec*> jobs = {&job, &job};
  // Job 0 wants 10 tasks (does not fit in 8 slots), job 1 wants 2: job 1 is placed first, whole;
  // job 0 gets a partial placement of what is left (6 tasks).
  std::vector<int> ps = {4, 1}, wk = {6, 1};
  std::vector<Placement> out;
  OptimusPlacer placer;
  placer.place(pool, jobs, ps, wk, {{}, {}}, out);
  EXPECT_EQ(ps[1] + wk[1], 2);
  EXPECT_EQ(out[1].size(), 1u);  // one server suffices
  EXPECT_EQ(ps[0] + wk[0], 6);
  EXPECT_GE(ps[0], 1);
  EXPECT_GE(wk[0], 1);
  // Never over capacity.
  for (int s = 0; s < 2; ++s) EXPECT_LE(pool.used(s, 0), 4 + 1e-9);
  // Avoided servers are not used.
  PsPool pool2(c);
  std::vector<const PsJobSpec*> one = {&job};
  std::vector<int> p1 = {1}, w1 = {1};
  placer.place(pool2, one, p1, w1, {{0}}, out);
  ASSERT_EQ(out[0].size(), 1u);
  EXPECT_EQ(out[0][0].server, 1);
}

TEST(OptimusPlacement, GpuWorkersNeverLandOnCpuOnlyServers) {
  const ClusterSpec c = ClusterSpec::parse(default_experiments_dir() + "/clusters/optimus-testbed.yaml");
  PsPool pool(c);
  PsJobSpec job;
  job.type = find_ps_job_type("vgg-16");
  job.worker = job.job_type().testbed_worker;
  job.ps = job.job_type().testbed_ps;
  std::vector<const PsJobSpec*> jobs = {&job};
  std::vector<int> ps = {3}, wk = {4};
  std::vector<Placement> out;
  OptimusPlacer placer;
  placer.place(pool, jobs, ps, wk, {{}}, out);
  int w = 0;
  for (const Slice& s : out[0]) {
    if (s.workers > 0) {
      EXPECT_GT(c.servers[s.server].gpus, 0);
    }
    w += s.workers;
  }
  EXPECT_EQ(w, 4);
}

// The headline: on a small fixed-seed testbed setup Optimus beats DRF and Tetris on both average
// JCT and makespan.
TEST(Optimus, BeatsDrfAndTetrisOnTheTestbed) {
  Experiment e = load_experiment("optimus-testbed", default_experiments_dir());
  e.seeds = {1, 2, 3};
  e.policies = {"optimus", "drf", "tetris"};
  const auto runs = run_experiment(e, default_data_dir());
  double jct[3] = {0, 0, 0}, mk[3] = {0, 0, 0};
  for (const auto& r : runs) {
    const int k = r.policy == "optimus" ? 0 : r.policy == "drf" ? 1 : 2;
    EXPECT_EQ(r.metrics.finished, r.metrics.jobs) << r.policy;
    jct[k] += r.metrics.avg_jct_s;
    mk[k] += r.metrics.makespan_s;
  }
  EXPECT_LT(jct[0], jct[1]);
  EXPECT_LT(jct[0], jct[2]);
  EXPECT_LT(mk[0], mk[1]);
  EXPECT_LT(mk[0], mk[2]);
}

TEST(Optimus, OracleAndFittedBothFinishAndAreDeterministic) {
  Experiment e = load_experiment("optimus-testbed", default_experiments_dir());
  e.seeds = {4};
  e.policies = {"optimus"};
  const auto a = run_experiment(e, default_data_dir());
  const auto b = run_experiment(e, default_data_dir());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].metrics.avg_jct_s, b[0].metrics.avg_jct_s);
  e.policy_params["optimus.oracle"] = "1";
  const auto o = run_experiment(e, default_data_dir());
  EXPECT_EQ(o[0].metrics.finished, o[0].metrics.jobs);
  // Without probe costs and with true models the oracle is not slower.
  EXPECT_LE(o[0].metrics.avg_jct_s, a[0].metrics.avg_jct_s);
}

// A PS job seen through a hand-made monitor: formula speeds, a known loss curve, fixed slowdowns.
class FakeMonitor final : public JobOracle, public PsJobMonitor {
 public:
  FakeMonitor(PsJobSpec spec, std::vector<double> slowdowns) : spec_(std::move(spec)), slow_(std::move(slowdowns)) {}
  const PsJobSpec& spec() const override { return spec_; }
  double epochs_done() const override { return 10; }
  int losses_observed() const override { return 5; }
  double observed_loss(int k) const override { return loss_curve(spec_, k); }
  double measure_speed(int p, int w, double) const override { return formula_samples_per_s(spec_, p, w); }
  double observed_speed() const override { return formula_samples_per_s(spec_, 1, 3); }
  std::span<const double> worker_slowdowns() const override { return slow_; }
  double true_speed(int p, int w) const override { return formula_samples_per_s(spec_, p, w); }
  double true_total_epochs() const override { return 100; }
  double remaining_time_s(int) const override { return 1; }
  double step_time_s(int) const override { return 1; }
  double remaining_iterations() const override { return 0; }
  int max_gpus() const override { return 16; }

 private:
  PsJobSpec spec_;
  std::vector<double> slow_;
};

// Straggler replacement: the worker 3x slower than its peers is moved off its server.
TEST(Optimus, ReplacesAStragglingWorker) {
  const ClusterSpec c = uniform_cluster(3, 16, 2);
  PsJobSpec spec;
  spec.type = find_ps_job_type("resnet-50");
  spec.worker = spec.job_type().testbed_worker;
  spec.ps = spec.job_type().testbed_ps;
  spec.total_epochs = 100;
  spec.eval_every_epochs = 2;
  make_loss_curve(50, 0.3, 0, 0.05, spec);
  Job job;
  job.name = "j";
  job.kind = WorkKind::ParameterServer;
  for (bool replace : {true, false}) {
    FakeMonitor monitor(spec, {3.0, 1.0, 1.0});
    JobView v;
    v.job = &job;
    v.oracle = &monitor;
    v.executed_s = 600;
    // One worker on each server (the PS with the first); the worker on server 0 straggles.
    v.placement = Placement{Slice{0, 1, 1, 1}, Slice{1, 1, 1, 0}, Slice{2, 1, 1, 0}};
    PolicyOptions o;
    o.params["optimus.oracle"] = "1";
    o.params["optimus.stragglers"] = replace ? "1" : "0";
    auto policy = make_policy("optimus", o);
    ClusterView view;
    view.cluster = &c;
    view.now_s = 600;
    view.round_s = 600;
    std::vector<JobView> views = {v};
    std::vector<Placement> out = {v.placement};
    policy->schedule(view, views, out);
    ASSERT_FALSE(out[0].empty());
    bool uses_0 = false;
    for (const Slice& s : out[0]) uses_0 |= s.server == 0;
    // On an empty cluster the placement always starts with server 0 (least used CPU, lowest id),
    // so only the replacement keeps the job off the straggler's server.
    EXPECT_EQ(uses_0, !replace);
  }
}

}  // namespace
}  // namespace dmlkit::cluster
