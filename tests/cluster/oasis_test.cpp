// OASiS model (src/cluster/oasis/): prices, the dual subroutine against brute force, admission,
// capacity for every method, the LP upper bound, bad jobs, determinism. Tiny instances only.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "cluster/oasis/dual_subroutine.h"
#include "cluster/oasis/lp_bound.h"
#include "cluster/oasis/method.h"
#include "cluster/oasis/oasis_experiment.h"
#include "cluster/oasis/price.h"
#include "core/data_dir.h"
#include "core/error.h"

using namespace dmlkit::cluster::oasis;

namespace {

OasisWorkloadSpec small_spec() {
  OasisWorkloadSpec s;
  s.chunks = {2, 6};
  s.per_worker_slots = {1, 4};
  s.worker_lo = {1, 1, 4, 0.1};
  s.worker_hi = {2, 4, 16, 1};
  s.ps_lo = {0, 1, 4, 0.5};
  s.ps_hi = {0, 4, 16, 2};
  s.workers_per_ps = {2, 4};
  s.target_slots = {1, 4};
  s.arrival_slots = 15;
  s.arrivals = "poisson";
  return s;
}

OasisCluster small_cluster(int horizon = 20, bool shared = false) {
  return make_cluster(3, {4, 16, 64, 10}, 1, {0, 16, 64, 10}, shared, horizon);
}

OasisJob oasis_job(int id, int arrival, long work, int n, int gamma, double priority, double target) {
  OasisJob j;
  j.id = id;
  j.arrival_slot = arrival;
  j.work_worker_slots = work;
  j.max_workers = j.chunks = n;
  j.workers_per_ps = gamma;
  j.worker_demand = {1, 2, 8, 0.5};
  j.ps_demand = {0, 2, 8, 1};
  j.utility = {UtilityKind::Sigmoid, priority, 5, target};
  j.user_workers = std::max(1, n / 2);
  j.user_ps = j.ps_for(j.user_workers);
  return j;
}

}  // namespace

TEST(OasisPrice, RisesMonotonicallyWithAllocationAndReachesUAtCapacity) {
  const PriceBounds b = price_bounds(small_spec(), false);
  const OasisCluster c = small_cluster(4);
  for (int r = 0; r < kNumResources; ++r) {
    const PriceFamily& f = b.of(false, r);
    ASSERT_TRUE(f.priced) << resource_name(r);
    EXPECT_LT(f.lower, f.upper);
    EXPECT_DOUBLE_EQ(f.price(0), f.lower);
    EXPECT_NEAR(f.price(1), f.upper, 1e-12 * f.upper);
  }
  EXPECT_FALSE(b.of(true, kGpu).priced) << "no PS uses a GPU";
  // Allocate workers of one GPU on server 0 slot 2, one at a time: its GPU price rises strictly and
  // is U when the server's 4 GPUs are taken.
  SlotLedger ledger(c);
  double prev = unit_price(b, ledger, 2, 0, kGpu);
  EXPECT_DOUBLE_EQ(prev, b.of(false, kGpu).lower);
  const ResourceVec one_gpu{1, 0, 0, 0};
  for (int k = 1; k <= 4; ++k) {
    ledger.add(2, 0, one_gpu, 1, false);
    const double p = unit_price(b, ledger, 2, 0, kGpu);
    EXPECT_GT(p, prev);
    prev = p;
  }
  EXPECT_NEAR(prev, b.of(false, kGpu).upper, 1e-9 * prev);
  EXPECT_DOUBLE_EQ(unit_price(b, ledger, 1, 0, kGpu), b.of(false, kGpu).lower) << "other slots unaffected";
  EXPECT_GT(b.competitive_ratio(), 2.0);
}

TEST(OasisDual, NegativePayoffJobIsRejected) {
  const OasisWorkloadSpec spec = small_spec();
  const OasisCluster c = small_cluster();
  // Priority far below the range the prices were built for: any schedule costs more than it earns.
  std::vector<OasisJob> jobs{oasis_job(0, 0, 12, 4, 2, 1e-9, 3), oasis_job(1, 0, 4, 2, 2, 80, 3)};
  const OasisProblem p{&c, &jobs, &spec};
  const OasisRun run = make_oasis_method("oasis", {}, 1)->run(p);
  EXPECT_FALSE(run.jobs[0].admitted);
  EXPECT_TRUE(run.jobs[0].schedule.empty());
  EXPECT_TRUE(run.jobs[1].admitted) << "a valuable job is admitted on an empty cluster";
  const SlotLedger empty(c);
  const ScheduleChoice choice = best_schedule(jobs[0], empty, price_bounds(spec, false));
  EXPECT_TRUE(!choice.found || choice.payoff <= 0);
}

// Brute force: every per-slot worker count, every distribution of workers and PSs over servers.
TEST(OasisDual, DynamicProgramFindsTheBruteForceOptimum) {
  const OasisWorkloadSpec spec = small_spec();
  const int T = 4;
  OasisCluster c = make_cluster(2, {3, 16, 64, 10}, 2, {0, 16, 64, 10}, false, T);
  const PriceBounds prices = price_bounds(spec, false);
  for (int variant = 0; variant < 3; ++variant) {
    SlotLedger ledger(c);
    // Uneven prior allocations make prices differ by slot and server.
    ledger.add(0, 0, {2, 0, 0, 0}, 1, false);
    ledger.add(1, 1, {1, 4, 0, 0}, 1 + variant % 2, false);
    ledger.add(2, 2, {0, 8, 32, 0}, 1, true);
    ledger.add(3, 0, {1, 0, 0, 0}, variant, false);
    OasisJob j = oasis_job(0, 0, 5 + variant, 3, 2, 60, 2.5 + variant);
    j.utility.decay = 1.5;
    DualOptions opt;
    opt.prune_horizon = false;
    opt.max_work_units = 1000;
    const ScheduleChoice got = best_schedule(j, ledger, prices, opt);

    auto task_cost = [&](const ResourceVec& d, int t, int h) {
      double s = 0;
      for (int r = 0; r < kNumResources; ++r) s += d[r] * unit_price(prices, ledger, t, h, r);
      return s;
    };
    // Cheapest placement of n tasks of demand d over the servers `hs` in slot t (exhaustive).
    std::function<double(const ResourceVec&, int, int, std::vector<int>, size_t)> place =
        [&](const ResourceVec& d, int t, int n, std::vector<int> hs, size_t i) -> double {
      if (n == 0) return 0;
      if (i == hs.size()) return std::numeric_limits<double>::infinity();
      double best = std::numeric_limits<double>::infinity();
      const int room = ledger.room(t, hs[i], d);
      for (int k = 0; k <= std::min(n, room); ++k)
        best = std::min(best, k * task_cost(d, t, hs[i]) + place(d, t, n - k, hs, i + 1));
      return best;
    };
    double best = -std::numeric_limits<double>::infinity();
    int y[T];
    std::function<void(int)> rec = [&](int t) {
      if (t == T) {
        long w = 0;
        int last = -1;
        double cost = 0;
        for (int s = 0; s < T; ++s) {
          w += y[s];
          if (y[s] > 0) {
            last = s;
            cost += place(j.worker_demand, s, y[s], {0, 1}, 0) + place(j.ps_demand, s, j.ps_for(y[s]), {2, 3}, 0);
          }
        }
        if (w >= j.work_worker_slots && std::isfinite(cost)) best = std::max(best, j.utility.value(last + 1) - cost);
        return;
      }
      for (int k = 0; k <= j.max_workers; ++k) y[t] = k, rec(t + 1);
    };
    rec(0);
    ASSERT_TRUE(got.found);
    EXPECT_NEAR(got.payoff, best, 1e-9 * std::max(1.0, std::abs(best))) << "variant " << variant;
    EXPECT_NEAR(schedule_cost(j, got.slots, ledger, prices), got.cost, 1e-9 * std::max(1.0, got.cost));
  }
}

TEST(OasisMethods, CapacityNeverExceededAndBoundAboveEveryMethod) {
  const std::string data = dmlkit::default_data_dir();
  for (bool shared : {false, true}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      OasisWorkloadSpec spec = small_spec();
      spec.load = 2.5;  // scarce resources
      const OasisCluster c = small_cluster(20, shared);
      const std::vector<OasisJob> jobs = oasis_workload(spec, c, seed, data);
      ASSERT_GT(jobs.size(), 5u);
      const OasisProblem p{&c, &jobs, &spec};
      const LpBound bound = lp_upper_bound(c, jobs);
      double oasis_utility = 0;
      for (const auto& name : oasis_method_registry().names()) {
        const OasisRun run = make_oasis_method(name, {}, seed)->run(p);
        const OasisMetrics m = check_and_measure(p, run);  // throws on any exceeded capacity
        EXPECT_LE(m.max_server_utilization, 1 + 1e-9) << name;
        EXPECT_LE(m.total_utility, bound.upper_bound * (1 + 1e-9) + 1e-9) << name << " seed " << seed;
        if (name == "oasis") oasis_utility = m.total_utility;
        else EXPECT_EQ(m.admitted, m.jobs) << name << " admits every job";
      }
      EXPECT_GT(oasis_utility, 0);
      EXPECT_GE(bound.upper_bound, bound.lp_value - 1e-6);
    }
  }
}

TEST(OasisJobs, IncreasingUtilityOrNegativeDemandIsAnError) {
  OasisJob j = oasis_job(0, 0, 4, 2, 2, 10, 3);
  EXPECT_NO_THROW(check_job(j, 20, "jobs.csv", 3));
  OasisJob up = j;
  up.utility.decay = -2;  // increasing sigmoid
  try {
    check_job(up, 20, "jobs.csv", 3);
    FAIL();
  } catch (const dmlkit::Error& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.field(), "utility");
  }
  OasisJob neg = j;
  neg.ps_demand[kCpu] = -1;
  EXPECT_THROW(check_job(neg, 20, "jobs.csv", 4), dmlkit::Error);
}

TEST(OasisWorkload, DeterministicForASeedAndScaledByLoad) {
  const std::string data = dmlkit::default_data_dir();
  OasisWorkloadSpec spec = small_spec();
  spec.arrivals = "google";
  const OasisCluster c = small_cluster();
  const auto a = oasis_workload(spec, c, 7, data), b = oasis_workload(spec, c, 7, data);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_slot, b[i].arrival_slot);
    EXPECT_EQ(a[i].work_worker_slots, b[i].work_worker_slots);
    EXPECT_EQ(a[i].utility.priority, b[i].utility.priority);
    check_job(a[i], c.horizon_slots, "gen", 0);
    EXPECT_LT(a[i].arrival_slot, spec.arrival_slots);
    if (i > 0) {
      EXPECT_LE(a[i - 1].arrival_slot, a[i].arrival_slot);
    }
  }
  spec.load = 3;
  EXPECT_GT(oasis_workload(spec, c, 7, data).size(), 2 * a.size());
}
