// Tests of the schedulers' decisions (no network): partitions, priorities, credit, fusion, buckets.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "comm/pace_oracle.h"
#include "comm/scheduler.h"
#include "comm/schedulers/priority_queue.h"
#include "core/error.h"

using namespace dmlkit;
using namespace dmlkit::comm;

namespace {

TrainingWorkload chain(const std::vector<double>& mb) {
  std::vector<SyntheticLayer> layers;
  for (double m : mb) layers.push_back({0.001, 0.002, m * 1e6});
  return make_chain_workload("chain", layers);
}

// Knob values of the schedulers' registry entries, sizes in bytes written in the knobs' MB.
KnobValues bytescheduler_knobs(double partition_bytes, double credit_bytes, const std::string& mode = "any") {
  return {{"bytescheduler.partition-mb", fmt::format("{}", partition_bytes / 1e6)},
          {"bytescheduler.credit-mb", fmt::format("{}", credit_bytes / 1e6)},
          {"bytescheduler.credit-mode", mode}};
}

NetworkConfig allreduce_net() {
  NetworkConfig n;
  n.arch = Arch::allreduce;
  return n;
}

NetworkConfig ps_net() {
  NetworkConfig n;
  n.arch = Arch::ps;
  n.workers = 4;
  n.servers = 2;
  return n;
}

}  // namespace

TEST(CommPriorityQueue, SplitsIntoNearlyEqualPartitions) {
  auto parts = split_chunks({{0, 10e6}}, 10e6, 4e6);
  ASSERT_EQ(parts.size(), 3u);
  for (auto& p : parts) {
    ASSERT_EQ(p.size(), 1u);
    EXPECT_NEAR(p[0].bytes, 10e6 / 3, 1e-3);
  }
  EXPECT_EQ(split_chunks({{0, 3e6}}, 3e6, 4e6).size(), 1u);
  // A fused pair split across the tensor boundary keeps every byte.
  auto fused = split_chunks({{0, 3e6}, {1, 5e6}}, 8e6, 4e6);
  ASSERT_EQ(fused.size(), 2u);
  ASSERT_EQ(fused[0].size(), 2u);  // 3 MB of tensor 0 + 1 MB of tensor 1
  ASSERT_EQ(fused[1].size(), 1u);  // the other 4 MB of tensor 1
  EXPECT_NEAR(fused[0][0].bytes, 3e6, 1e-3);
  EXPECT_NEAR(fused[0][1].bytes, 1e6, 1e-3);
  EXPECT_EQ(fused[1][0].tensor, 1);
  EXPECT_NEAR(fused[1][0].bytes, 4e6, 1e-3);
}

TEST(CommByteScheduler, PartitionsAndPriorityAsSpecified) {
  auto w = chain({10, 2, 6});
  auto s = make_scheduler("bytescheduler", bytescheduler_knobs(4e6, 1e12), w, ps_net());
  s->setup(w, ps_net());
  // Backward order: tensor 2 first, then 1, then 0; all queued before the first poll.
  s->on_ready(2, 0);
  s->on_ready(1, 0);
  s->on_ready(0, 0);
  std::vector<Transfer> out;
  s->poll(0, out);
  // Front layer first; its 3 partitions in order, then tensor 1 (one piece), then tensor 2 (2).
  ASSERT_EQ(out.size(), 6u);
  std::vector<int> tensors;
  for (auto& t : out) tensors.push_back(t.chunks[0].tensor);
  EXPECT_EQ(tensors, (std::vector<int>{0, 0, 0, 1, 2, 2}));
  EXPECT_NEAR(out[0].bytes, 10e6 / 3, 1e-3);
  EXPECT_NEAR(out[4].bytes, 3e6, 1e-3);
}

TEST(CommByteScheduler, HigherPriorityOvertakesQueuedPartitions) {
  auto w = chain({1, 1, 40});
  // One partition in flight.
  auto s = make_scheduler("bytescheduler", bytescheduler_knobs(4e6, 4e6), w, ps_net());
  s->setup(w, ps_net());
  s->on_ready(2, 0);
  std::vector<Transfer> out;
  s->poll(0, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].chunks[0].tensor, 2);
  s->on_ready(0, 0.001);  // front layer becomes ready while tensor 2's partitions queue
  s->on_done(out[0], 0.002);
  out.clear();
  s->poll(0.002, out);
  // The front layer's tensor goes first; credit (any semantics) then still has 3 MB, so the next
  // partition of tensor 2 follows.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].chunks[0].tensor, 0);
  EXPECT_EQ(out[1].chunks[0].tensor, 2);
}

// Drives a scheduler with random completion order and checks the window after every dispatch.
static void check_credit(CreditMode mode, double partition, double credit) {
  auto w = chain({7, 0.5, 13, 3, 0.2, 25, 9});
  auto s = make_scheduler(
      "bytescheduler", bytescheduler_knobs(partition, credit, mode == CreditMode::skip ? "skip" : "any"), w, ps_net());
  s->setup(w, ps_net());
  std::deque<Transfer> running;
  double in_flight = 0;
  double t = 0;
  int next_ready = static_cast<int>(w.tensors.size()) - 1;
  long dispatched = 0;
  while (true) {
    if (next_ready >= 0) s->on_ready(next_ready--, t);
    std::vector<Transfer> out;
    s->poll(t, out);
    if (out.empty() && running.empty() && next_ready < 0) break;
    for (auto& tr : out) {
      const double before = in_flight;
      in_flight += tr.bytes;
      ++dispatched;
      if (mode == CreditMode::skip)
        EXPECT_LE(in_flight, credit + 1e-6);
      else
        EXPECT_LT(before, credit);  // dispatched only while credit remained
      running.push_back(tr);
    }
    // Finish the oldest or the newest alternately.
    if (!running.empty()) {
      Transfer done = (dispatched % 2) ? running.front() : running.back();
      if (dispatched % 2)
        running.pop_front();
      else
        running.pop_back();
      in_flight -= done.bytes;
      s->on_done(done, t);
    }
    t += 0.001;
  }
  EXPECT_EQ(dispatched, 19);  // 2+1+4+1+1+7+3 partitions of at most 4 MB
}

TEST(CommByteScheduler, CreditNeverExceededInEitherSemantics) {
  check_credit(CreditMode::skip, 4e6, 8e6);
  check_credit(CreditMode::skip, 4e6, 4e6);
  check_credit(CreditMode::any, 4e6, 8e6);
  check_credit(CreditMode::any, 4e6, 1e6);
}

TEST(CommByteScheduler, SkipSemanticsTakesASmallerLowerPriorityTask) {
  auto w = chain({6, 1});
  KnobValues o = bytescheduler_knobs(6e6, 8e6, "skip");
  auto s = make_scheduler("bytescheduler", o, w, ps_net());
  s->setup(w, ps_net());
  s->on_ready(0, 0);
  std::vector<Transfer> out;
  s->poll(0, out);  // 6 MB in flight, 2 MB credit left
  ASSERT_EQ(out.size(), 1u);
  auto w2 = chain({6, 6, 1});
  auto s2 = make_scheduler("bytescheduler", o, w2, ps_net());
  s2->setup(w2, ps_net());
  s2->on_ready(0, 0);
  s2->on_ready(1, 0);
  s2->on_ready(2, 0);
  out.clear();
  s2->poll(0, out);
  // skip: tensor 0 (6 MB) goes, tensor 1 (6 MB) does not fit the 2 MB left, tensor 2 (1 MB) does.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].chunks[0].tensor, 0);
  EXPECT_EQ(out[1].chunks[0].tensor, 2);
  // any: the head (tensor 1) goes while credit > 0, overshooting.
  o["bytescheduler.credit-mode"] = "any";
  auto s3 = make_scheduler("bytescheduler", o, w2, ps_net());
  s3->setup(w2, ps_net());
  s3->on_ready(0, 0);
  s3->on_ready(1, 0);
  s3->on_ready(2, 0);
  out.clear();
  s3->poll(0, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].chunks[0].tensor, 1);
}

TEST(CommByteScheduler, SkipWithCreditBelowPartitionIsRejected) {
  EXPECT_THROW(make_scheduler("bytescheduler", bytescheduler_knobs(8e6, 4e6, "skip"), chain({1}), ps_net()), Error);
}

TEST(CommP3, SlicesAndLayerPriority) {
  auto w = chain({1, 0.5});
  auto s = make_scheduler("p3", {}, w, allreduce_net());
  s->setup(w, allreduce_net());
  s->on_ready(1, 0);
  s->on_ready(0, 0);
  std::vector<Transfer> out;
  s->poll(0, out);
  ASSERT_EQ(out.size(), 1u);  // one 200 kB slice in flight for all-reduce
  EXPECT_EQ(out[0].chunks[0].tensor, 0);
  EXPECT_NEAR(out[0].bytes, 200000, 1e-6);
}

TEST(CommDdp, BucketsOfOneMiBThen25MiBInReverseOrder) {
  // 30 tensors of 1 MB: first bucket closes once it reaches 1 MiB (2 tensors), others at 25 MiB
  // (27 tensors reach 27e6 >= 26.2e6 bytes), the remaining one forms the last bucket.
  auto w = chain(std::vector<double>(30, 1.0));
  auto s = make_scheduler("ddp", {}, w, allreduce_net());
  s->setup(w, allreduce_net());
  std::vector<Transfer> out;
  for (int t = 29; t >= 0; --t) {
    s->on_ready(t, 0);
    s->poll(0, out);
  }
  ASSERT_EQ(out.size(), 1u);  // one at a time
  EXPECT_EQ(out[0].chunks.size(), 2u);
  EXPECT_EQ(out[0].chunks[0].tensor, 29);
  s->on_done(out[0], 0.1);
  out.clear();
  s->poll(0.1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].chunks.size(), 27u);
  s->on_done(out[0], 0.2);
  out.clear();
  s->poll(0.2, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].chunks.size(), 1u);
  EXPECT_EQ(out[0].chunks[0].tensor, 0);
}

TEST(CommHorovod, FusesReadyTensorsUpToTheThresholdAtTheCycle) {
  auto w = chain({30, 30, 30, 100});
  const KnobValues o{{"horovod.fusion-mb", fmt::format("{}", 64e6 / (1024.0 * 1024))}, {"horovod.cycle-ms", "5"}};
  auto s = make_scheduler("horovod", o, w, allreduce_net());
  s->setup(w, allreduce_net());
  std::vector<Transfer> out;
  s->on_ready(3, 0.001);
  s->on_ready(2, 0.002);
  s->on_ready(1, 0.003);
  s->on_ready(0, 0.004);
  s->poll(0.004, out);
  EXPECT_TRUE(out.empty());  // waits for the cycle
  EXPECT_DOUBLE_EQ(s->next_wakeup_s(), 0.005);
  s->poll(0.005, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].chunks.size(), 1u);  // the 100 MB tensor alone
  s->on_done(out[0], 0.1);
  out.clear();
  s->poll(0.1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].chunks.size(), 2u);  // 30+30 <= 64 MB
  EXPECT_THROW(make_scheduler("horovod", o, w, ps_net()), Error);
}

TEST(CommPace, FusionPlanCoversEveryTensorOnceAndNeverHurtsTheOracle) {
  std::vector<double> mb;
  for (int i = 0; i < 40; ++i) mb.push_back(0.05 + (i % 7) * 0.3);
  auto w = chain(mb);
  PaceOracle oracle(w, OracleNetwork{200e-6, 1.0 / 1.25e9, 4e6});
  auto plan = pace_fusion_plan(oracle);
  std::vector<int> seen;
  for (auto& g : plan) seen.insert(seen.end(), g.begin(), g.end());
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(seen[i], i);
  std::vector<std::vector<int>> unfused;
  for (int t : oracle.ready_order()) unfused.push_back({t});
  EXPECT_LE(oracle.evaluate(plan), oracle.evaluate(unfused) + 1e-12);
  EXPECT_LT(plan.size(), 40u);  // with a 200 us per-op cost, fusing small tensors pays
}

TEST(CommRegistry, UnknownSchedulerIsAnError) {
  try {
    make_scheduler("nope", {}, chain({1}), ps_net());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "scheduler");
  }
}
