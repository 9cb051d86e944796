// The SimGrid iteration simulator, the schedulers and the placements.
#include <gtest/gtest.h>

#include <map>

#include "core/error.h"
#include "gnn/compare.h"
#include "gnn/placement.h"
#include "gnn/scheduler.h"
#include "gnn/simulate.h"
#include "gnn_test_util.h"

using namespace dmlkit;
using namespace dmlkit::gnn;

using fixture::Fixture;

namespace {

Placement colocated(const Fixture& s) {
  PlacementContext ctx;
  ctx.cluster = &s.cluster;
  ctx.job = &s.job;
  return make_placement("colocate", {})->place(ctx).placement;
}

SimResult run(const Fixture& s, const Placement& p, const std::string& sched, int iterations = 4) {
  SimConfig c;
  c.iterations = iterations;
  c.keep_all = true;
  return simulate(s.cluster, s.job, p, *make_scheduler(sched, {}), c);
}

}  // namespace

TEST(GnnSim, FeatureBytesEqualSampledNodesTimesFeatureBytesPerPartition) {
  Fixture s = fixture::make_setup(4, 4, "v100:2,k80:2");
  const Placement p = colocated(s);
  for (const std::string sched : {"fifo-fair", "online"}) {
    const SimResult r = run(s, p, sched);
    std::map<std::tuple<int, int, int>, double> moved;
    for (const auto& sp : r.spans)
      if (sp.kind == SpanKind::feature_flow) moved[{sp.trainer, sp.iteration, sp.partition}] += sp.bytes;
    double local = 0;
    for (int t = 0; t < s.job.trainers; ++t)
      for (int i = 0; i < 4; ++i)
        for (int q = 0; q < s.job.partitions; ++q) {
          const double want = static_cast<double>(s.job.samples->at(t, i).nodes_per_part[q]) * 128 * 4;
          if (s.cluster.store_machine[q] == p[s.job.trainer_task(t)]) {
            EXPECT_EQ((moved.count({t, i, q})), 0u);  // local partition: nothing on the network
            local += want;
          } else {
            EXPECT_DOUBLE_EQ((moved[{t, i, q}]), want) << sched << " t" << t << " i" << i << " q" << q;
          }
        }
    EXPECT_GE(r.local_bytes, local);
    EXPECT_EQ(r.iteration_end_s.size(), 4u);
  }
}

TEST(GnnSim, ASingleMachineWithLocalDataHasNoNetworkTime) {
  JobConfig cfg;
  Fixture s = fixture::make_setup(1, 1, "v100:1", 3, cfg);
  const Placement p = colocated(s);
  const SimResult r = run(s, p, "fifo-fair", 3);
  EXPECT_EQ(r.network_bytes, 0);
  for (const auto& sp : r.spans) EXPECT_TRUE(sp.kind == SpanKind::sample || sp.kind == SpanKind::compute || sp.kind == SpanKind::sync);
  // Every iteration is sampling (pipelined) + compute: the makespan is the sum of the critical chain.
  EXPECT_GT(r.makespan_s(), 0);
}

TEST(GnnSim, OnlineNeverStartsAComputeBeforeItsTransfers) {
  Fixture s = fixture::make_setup(4, 8, "v100:4,p100:2,k80:2", 5);
  PlacementContext ctx;
  ctx.cluster = &s.cluster;
  ctx.job = &s.job;
  ctx.seed = 3;
  const Placement p = make_placement("random", {})->place(ctx).placement;
  const SimResult r = run(s, p, "online", 5);
  std::map<std::pair<int, int>, double> last_input, compute_start;
  for (const auto& sp : r.spans) {
    if (sp.kind == SpanKind::feature_flow || sp.kind == SpanKind::block_flow || sp.kind == SpanKind::sample)
      last_input[{sp.trainer, sp.iteration}] = std::max(last_input[{sp.trainer, sp.iteration}], sp.end_s);
    if (sp.kind == SpanKind::compute) compute_start[{sp.trainer, sp.iteration}] = sp.start_s;
  }
  ASSERT_EQ(compute_start.size(), static_cast<size_t>(s.job.trainers * 5));
  for (const auto& [key, start] : compute_start) EXPECT_GE(start + 1e-12, last_input[key]);
  // ... and no compute of iteration i+1 before the sync of iteration i.
  for (const auto& [key, start] : compute_start) {
    if (key.second > 0) {
      EXPECT_GE(start + 1e-12, r.iteration_end_s[key.second - 1]);
    }
  }
}

TEST(GnnSim, OnlineBeatsFifoFairWhenPrefetchCompetesForTheNetwork) {
  // Remote-heavy placement (random, 1 Gbps): prefetched transfers of iteration i+1 compete with
  // iteration i's; the online scheduler serves iteration i first.
  Fixture s = fixture::make_setup(4, 8, "v100:8", 8);
  PlacementContext ctx;
  ctx.cluster = &s.cluster;
  ctx.job = &s.job;
  ctx.seed = 5;
  const Placement p = make_placement("greedy", {})->place(ctx).placement;
  const double fifo = run(s, p, "fifo-fair", 8).mean_iteration_s(2);
  const double online = run(s, p, "online", 8).mean_iteration_s(2);
  EXPECT_LE(online, fifo * 1.0001);
}

TEST(GnnPlacement, ExploreNeverReturnsWorseThanItsStart) {
  Fixture s = fixture::make_setup(4, 8, "v100:4,p100:2,k80:2", 6);
  auto sched = make_scheduler("online", {});
  PlacementContext ctx;
  ctx.cluster = &s.cluster;
  ctx.job = &s.job;
  ctx.seed = 9;
  ctx.evaluate = [&](const Placement& p) {
    SimConfig c;
    c.iterations = 4;
    c.gantt_iterations = 0;
    return simulate(s.cluster, s.job, p, *sched, c).mean_iteration_s(1);
  };
  ctx.place_by = [&](const std::string& n) { return make_placement(n, {})->place(ctx).placement; };
  const auto out = make_placement("explore", {{"explore.candidates", "12"}})->place(ctx);
  EXPECT_EQ(out.evaluations, 12);
  EXPECT_LE(out.best_estimate_s, out.start_estimate_s);
  EXPECT_DOUBLE_EQ(ctx.evaluate(out.placement), out.best_estimate_s);
  EXPECT_TRUE(feasible(s.cluster, s.job, out.placement));
}

TEST(GnnPlacement, ColocateFallsBackWhenAStoreMachineHasNoGpu) {
  Fixture s = fixture::make_setup(4, 8, "none:2,v100:6", 2);
  s.cluster.store_machine = {0, 1, 2, 3};
  const Placement p = colocated(s);
  EXPECT_TRUE(feasible(s.cluster, s.job, p));
  EXPECT_NE(p[s.job.trainer_task(0)], 0);  // machine 0 has no GPU
  EXPECT_EQ(p[s.job.trainer_task(2)], 2);
  EXPECT_EQ(p[s.job.sampler_task(0)], 0);  // the sampler still sits with its data
  EXPECT_THROW(make_placement("nope", {}), Error);
}

TEST(GnnSim, SteadyStateMeanLeavesOutTheWarmupAndTheDrain) {
  SimResult r;
  r.iteration_end_s = {5, 6, 8, 10, 12, 13};  // fill, steady at 2 s per iteration, then a fast drain
  EXPECT_DOUBLE_EQ(r.mean_iteration_s(2), (13.0 - 6.0) / 4);
  EXPECT_DOUBLE_EQ(r.mean_iteration_s(2, 1), (12.0 - 6.0) / 3);
  EXPECT_DOUBLE_EQ(r.mean_iteration_s(0, 0), 13.0 / 6);
  // The window keeps at least one iteration: cooldown shrinks first, then warmup.
  EXPECT_DOUBLE_EQ(r.mean_iteration_s(2, 10), (8.0 - 6.0) / 1);
  EXPECT_DOUBLE_EQ(r.mean_iteration_s(10, 10), 13.0 - 12.0);
}

TEST(GnnSim, LinkInstrumentationAccountsForEveryNetworkByte) {
  Fixture s = fixture::make_setup(4, 8, "none:2,v100:2,p100:2,k80:2", 5);
  PlacementContext ctx;
  ctx.cluster = &s.cluster;
  ctx.job = &s.job;
  ctx.seed = 3;
  const Placement p = make_placement("random", {})->place(ctx).placement;
  for (const std::string sched : {"fifo-fair", "online"}) {
    const SimResult r = run(s, p, sched, 5);
    ASSERT_EQ(r.link_names.size(), 16u);  // up and down of 8 machines, no racks
    double up = 0, down = 0, flows = 0, spans = 0;
    for (size_t l = 0; l < r.link_names.size(); ++l) {
      (r.link_names[l].ends_with("_up") ? up : down) += r.link_bytes[l];
      EXPECT_LE(r.link_utilization(static_cast<int>(l)), 1.0 + 1e-9);
    }
    for (double n : r.flow_count) flows += n;
    for (const auto& sp : r.spans) spans += sp.source >= 0;
    EXPECT_NEAR(up, r.network_bytes, 1e-6 * r.network_bytes);  // every flow leaves by one uplink...
    EXPECT_NEAR(down, r.network_bytes, 1e-6 * r.network_bytes);  // ... and enters by one downlink
    EXPECT_EQ(flows, spans);
    ASSERT_GE(r.busiest_link(), 0);
    EXPECT_GT(r.link_utilization(r.busiest_link()), 0);
    for (double w : r.flow_wait_s) EXPECT_GE(w, 0);
  }
}

TEST(GnnPlacement, ExploreNeverWorseThanItsStartWithLimitedResources) {
  // The TNET setting: stores on machines 0-3, machines 0 and 1 without a GPU (co-location of
  // partitions 0 and 1 infeasible), heterogeneous GPUs; the run's own estimator (warmup, drain).
  CompareOptions o;
  o.graph = "cora";
  o.data_dir = fixture::data_dir();
  o.cluster.gavel_path = fixture::gavel_path();
  o.cluster.machines = 8;
  o.cluster.devices = "none:2,v100:2,p100:2,k80:2";
  o.cluster.store_machines = {0, 1, 2, 3};
  o.sampler.batch = 64;
  o.placements = {"explore"};
  o.schedulers = {"online"};
  o.placement_params = {{"explore.candidates", "10"}, {"explore.iterations", "6"}};
  o.sim_iterations = 8;
  o.threads = 1;
  const Comparison c = run_compare(o);
  ASSERT_EQ(c.runs.size(), 1u);
  const auto& search = c.runs[0].search;
  EXPECT_EQ(search.evaluations, 10);
  EXPECT_LE(search.best_estimate_s, search.start_estimate_s);
  EXPECT_TRUE(feasible(c.cluster, c.job, c.runs[0].where));
}
