// Tests of the SimGrid iteration simulator: analytic transfer times, iteration semantics,
// schedulers' invariants in simulation, several simulations in one process, bad input.
#include <gtest/gtest.h>

#include "comm/iteration_sim.h"
#include "comm/model_graph.h"
#include "core/error.h"

using namespace dmlkit;
using namespace dmlkit::comm;

namespace {

const std::string kSimGraphDir = std::string(DMLKIT_SOURCE_DIR) + "/data/model-graphs";

NetworkConfig sim_net_of(Arch arch, int workers, int servers, double gbps) {
  NetworkConfig n;
  n.arch = arch;
  n.workers = workers;
  n.servers = servers;
  n.bandwidth_Bps = gbps * 1e9 / 8;
  n.latency_s = 1e-6;
  n.op_overhead_s = 0;
  return n;
}

}  // namespace

// One tensor of S bytes, no compute: the steady-state iteration is exactly one synchronisation.
TEST(CommSimulation, RingAllReduceTakesTwoNMinusOneOverNTimesSOverB) {
  const double s_bytes = 100e6;
  auto w = make_chain_workload("one", {{0, 0, s_bytes}});
  for (int n : {2, 4, 8})
    for (bool stepwise : {false, true}) {
      auto net = sim_net_of(Arch::allreduce, n, 0, 10);
      net.ring_stepwise = stepwise;
      auto r = simulate(w, net, "fifo", {});
      const double expected = 2.0 * (n - 1) / n * s_bytes / net.bandwidth_Bps;
      // Tolerance: 2(N-1) steps each pay 2 hops of 1 us latency (<= 28 us), plus byte rounding: 0.1%.
      EXPECT_NEAR(r.iteration_mean_s, expected, expected * 1e-3) << n;
      EXPECT_NEAR(r.iteration_mean_s, expected + 2.0 * (n - 1) * 2e-6, expected * 1e-5) << n;
    }
}

TEST(CommSimulation, SinglePsIsBoundByItsNic) {
  const double s_bytes = 50e6;
  auto w = make_chain_workload("one", {{0, 0, s_bytes}});
  for (int workers : {1, 2, 4, 8}) {
    auto net = sim_net_of(Arch::ps, workers, 1, 10);
    auto r = simulate(w, net, "fifo", {});
    // Push: the server's downlink carries W*S; pull: its uplink carries W*S; one after the other.
    const double expected = 2.0 * workers * s_bytes / net.bandwidth_Bps;
    EXPECT_NEAR(r.iteration_mean_s, expected, expected * 1e-3) << workers;
  }
}

TEST(CommSimulation, ManyServersSpreadBigTensors) {
  auto w = make_chain_workload("one", {{0, 0, 80e6}});
  auto net = sim_net_of(Arch::ps, 4, 4, 10);
  auto r = simulate(w, net, "fifo", {});
  // Split over 4 servers: each worker NIC carries S up then S down: 2 S / B.
  const double expected = 2.0 * 80e6 / net.bandwidth_Bps;
  EXPECT_NEAR(r.iteration_mean_s, expected, expected * 1e-3);
}

TEST(CommSimulation, ComputeOnlyWhenOneWorker) {
  auto w = make_chain_workload("c", {{0.01, 0.02, 1e6}, {0.005, 0.01, 2e6}});
  auto net = sim_net_of(Arch::allreduce, 1, 0, 10);
  auto r = simulate(w, net, "fifo", {});
  EXPECT_NEAR(r.iteration_mean_s, 0.045, 1e-9);
  EXPECT_NEAR(r.compute_s, 0.045, 1e-12);
}

TEST(CommSimulation, NextForwardWaitsForTheLayersUpdate) {
  // Layer 0's gradient is ready last; its 125 MB take 0.2 s at 10 Gbps (PS, 1 worker, 1 server
  // => push + pull = 0.2 s), so the next forward of layer 0 starts 0.2 s after backward ends.
  auto w = make_chain_workload("c", {{0.01, 0.01, 125e6}, {0.01, 0.01, 0}});
  auto net = sim_net_of(Arch::ps, 1, 1, 10);
  auto r = simulate(w, net, "fifo", {});
  EXPECT_NEAR(r.iteration_mean_s, 0.01 + 0.02 + 0.2 + 0.01, 1e-3);
  EXPECT_NEAR(r.overlap, 0.0, 1e-9);  // nothing left to overlap with
}

TEST(CommSimulation, ByteSchedulerCreditHoldsInSimulation) {
  auto g = load_model("vgg16", kSimGraphDir);
  auto w = make_workload(g);
  auto net = sim_net_of(Arch::ps, 4, 4, 10);
  KnobValues o{
      {"bytescheduler.partition-mb", "4"}, {"bytescheduler.credit-mb", "16"}, {"bytescheduler.credit-mode", "skip"}};
  auto skip = simulate(w, net, "bytescheduler", o);
  EXPECT_LE(skip.max_in_flight_bytes, 16e6 + 1);
  o["bytescheduler.credit-mode"] = "any";
  auto any = simulate(w, net, "bytescheduler", o);
  EXPECT_LT(any.max_in_flight_bytes, 16e6 + 4e6 + 1);
  for (const auto& t : any.log) EXPECT_LT(t.in_flight_bytes_after - t.bytes, 16e6 + 1);
}

TEST(CommSimulation, ByteSchedulerBeatsFifoOnVggOverPs) {
  auto w = make_workload(load_model("vgg16", kSimGraphDir));
  auto net = sim_net_of(Arch::ps, 8, 8, 10);
  auto fifo = simulate(w, net, "fifo", {});
  // A credit that keeps every server busy (8 MB partitions are spread over the 8 servers, 32 MB
  // keeps 4 in flight so pushes and pulls overlap): ByteScheduler then hides all communication
  // under compute, as the paper reports for VGG-16 on PS.
  const KnobValues o{{"bytescheduler.partition-mb", "8"}, {"bytescheduler.credit-mb", "32"}};
  auto bs = simulate(w, net, "bytescheduler", o);
  EXPECT_LT(bs.iteration_mean_s, fifo.iteration_mean_s);
  EXPECT_NEAR(bs.iteration_mean_s, lower_bound_s(w, net), lower_bound_s(w, net) * 0.01);
  EXPECT_GE(bs.iteration_mean_s, lower_bound_s(w, net) * (1 - 1e-9));
  EXPECT_GE(fifo.iteration_mean_s, lower_bound_s(w, net) * (1 - 1e-9));
}

TEST(CommSimulation, PaceNeverSlowerThanFifo) {
  for (const char* model : {"resnet50", "vgg16", "alexnet", "gnmt"}) {
    auto g = load_model(model, kSimGraphDir);
    scale_compute(g, 0.25);  // batch 32
    auto w = make_workload(g);
    for (double gbps : {1.0, 10.0, 100.0}) {
      for (int workers : {2, 16}) {
        auto net = sim_net_of(Arch::allreduce, workers, 0, gbps);
        net.latency_s = 5e-6;
        net.op_overhead_s = 50e-6;
        auto fifo = simulate(w, net, "fifo", {});
        auto pace = simulate(w, net, "pace", {});
        EXPECT_LE(pace.iteration_mean_s, fifo.iteration_mean_s * (1 + 1e-6)) << model << " " << gbps << " " << workers;
      }
    }
  }
}

TEST(CommSimulation, PaceReachesTheLowerBoundWhenCommunicationIsCheap) {
  auto w = make_workload(load_model("resnet50", kSimGraphDir));
  auto net = sim_net_of(Arch::allreduce, 8, 0, 100);
  auto r = simulate(w, net, "pace", {});
  const double lb = lower_bound_s(w, net);
  EXPECT_NEAR(r.iteration_mean_s, lb, lb * 0.01);
}

TEST(CommSimulation, BadInputIsAnError) {
  auto w = make_chain_workload("one", {{0, 0, 1e6}});
  auto net = sim_net_of(Arch::ps, 2, 1, 10);
  net.bandwidth_Bps = 0;
  EXPECT_THROW(simulate(w, net, "fifo", {}), Error);
  net = sim_net_of(Arch::ps, 2, 1, 10);
  EXPECT_THROW(simulate(w, net, "nope", {}), Error);
  EXPECT_THROW(simulate(w, net, "ddp", {}), Error);
  SimOptions so;
  so.iterations = 0;
  EXPECT_THROW(simulate(w, net, "fifo", {}, so), Error);
}

// The aggregated ring model (default) and the stepwise one agree on a homogeneous ring.
TEST(CommSimulation, AggregatedRingEqualsStepwiseRing) {
  for (const char* model : {"resnet18", "vgg16"}) {
    auto w = make_workload(load_model(model, kSimGraphDir));
    for (const char* sched : {"fifo", "bytescheduler", "horovod"}) {
      auto net = sim_net_of(Arch::allreduce, 6, 0, 10);
      net.latency_s = 5e-6;
      auto agg = simulate(w, net, sched, {});
      net.ring_stepwise = true;
      auto step = simulate(w, net, sched, {});
      EXPECT_NEAR(agg.iteration_mean_s, step.iteration_mean_s, step.iteration_mean_s * 1e-3) << model << " " << sched;
    }
  }
}

// Small tensors are spread over the servers (MXNet's (key * 9973) % M): 16 tensors of 1 MB on 4
// servers put 4 on each, so every NIC carries the same load and fifo's concurrent pushes take
// S/B, then the pulls S/B. All on one server would take W times longer.
TEST(CommSimulation, SmallTensorsAreSpreadOverServers) {
  std::vector<SyntheticLayer> layers(16, SyntheticLayer{0, 0, 1e6});
  auto w = make_chain_workload("small", layers);
  auto net = sim_net_of(Arch::ps, 4, 4, 10);
  auto r = simulate(w, net, "fifo", {});
  const double expected = 2.0 * 16e6 / net.bandwidth_Bps;
  EXPECT_NEAR(r.iteration_mean_s, expected, expected * 0.02);
}

// Per-parameter tensors: layers with several tensors wait for all of them; same bytes, and at an
// uncongested bandwidth the same (compute-bound) iteration as per-module tensors.
TEST(CommSimulation, PerParameterTensorsSimulate) {
  auto g = load_model("resnet50", kSimGraphDir);
  auto net = sim_net_of(Arch::allreduce, 4, 0, 100);
  auto mod = simulate(make_workload(g, TensorGranularity::module), net, "bytescheduler", {});
  auto par = simulate(make_workload(g, TensorGranularity::parameter), net, "bytescheduler", {});
  EXPECT_NEAR(mod.iteration_mean_s, par.iteration_mean_s, mod.iteration_mean_s * 0.01);
  auto slow = sim_net_of(Arch::allreduce, 4, 0, 1);
  auto p1 = simulate(make_workload(g, TensorGranularity::parameter), slow, "pace", {});
  auto f1 = simulate(make_workload(g, TensorGranularity::parameter), slow, "fifo", {});
  EXPECT_LE(p1.iteration_mean_s, f1.iteration_mean_s * (1 + 1e-6));
}

// Two racks whose uplinks have half a NIC's bandwidth: the ring crosses each uplink direction
// once, so those two flows -- and with them every step -- run at B/2: twice the time.
TEST(CommSimulation, OversubscribedRackUplinksSlowTheRing) {
  const double s_bytes = 100e6;
  auto w = make_chain_workload("one", {{0, 0, s_bytes}});
  auto net = sim_net_of(Arch::allreduce, 4, 0, 10);
  net.racks = 2;
  net.uplink_bandwidth_Bps = net.bandwidth_Bps / 2;
  auto r = simulate(w, net, "fifo", {});
  const double expected = 2.0 * 3 / 4 * s_bytes / (net.bandwidth_Bps / 2);
  EXPECT_NEAR(r.iteration_mean_s, expected, expected * 1e-3);
  net.uplink_bandwidth_Bps = 0;  // not oversubscribed: as fast as one switch
  auto fast = simulate(w, net, "fifo", {});
  EXPECT_NEAR(fast.iteration_mean_s, expected / 2, expected / 2 * 1e-3);
  net.racks = 9;
  EXPECT_THROW(simulate(w, net, "fifo", {}), dmlkit::Error);
}
