// Simulations in parallel threads sharing their inputs (one ClusterSpec, one Workload, one
// PolicyOptions, the process-wide application-profile cache) give the same results as the same
// simulations run one after the other (defect 6 of issue 11: the profile cache and the lazily
// built parts of a profile were unsynchronised). Run it under ThreadSanitizer (`make tsan`,
// docs/testing.md) to see a race, not only a wrong result.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/speed/app_profile.h"
#include "cluster/workload/workload.h"

namespace dmlkit::cluster {
namespace {

void expect_same_parallel(const SimResult& a, const SimResult& b, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    const JobRecord &x = a.jobs[i], &y = b.jobs[i];
    // Bitwise: parallel runs must not move a single rounding.
    EXPECT_EQ(x.first_start_s, y.first_start_s) << x.name;
    EXPECT_EQ(x.finish_s, y.finish_s) << x.name;
    EXPECT_EQ(x.executed_s, y.executed_s) << x.name;
    EXPECT_EQ(x.gpu_s, y.gpu_s) << x.name;
    EXPECT_EQ(x.preemptions, y.preemptions) << x.name;
    EXPECT_EQ(x.restarts, y.restarts) << x.name;
  }
  ASSERT_EQ(a.rounds.size(), b.rounds.size());
  for (size_t i = 0; i < a.rounds.size(); ++i) {
    EXPECT_EQ(a.rounds[i].time_s, b.rounds[i].time_s);
    EXPECT_EQ(a.rounds[i].gpus_busy, b.rounds[i].gpus_busy);
  }
  EXPECT_EQ(a.makespan_s, b.makespan_s);
}

struct SimCase {
  std::string policy;
  SimProfile profile;
};

TEST(ParallelSimulation, ThreadsSharingInputsGiveTheSerialResults) {
  // A data folder spelled differently from every other test's, so that the profile cache is cold
  // and the threads race to fill it (the cache is keyed by folder and application).
  const std::string data_dir = std::string(DMLKIT_SOURCE_DIR) + "/data/./";
  WorkloadOptions wo;
  wo.data_dir = data_dir;
  const Workload workload = load_workload("pollux-3", wo);  // measured profiles of all six applications
  const ClusterSpec cluster = ClusterSpec::homogeneous(16, 4);
  PolicyOptions shared_options;  // one object, read by every thread's policy
  shared_options.seed = 1;

  // optimus-oracle asks the packed step-time memo, tiresias and fifo the step-time lookups and the
  // triangulation of unmeasured placements; both profiles; each run twice at the same time.
  const std::vector<SimCase> runs = {{"tiresias", SimProfile::Pollux}, {"optimus-oracle", SimProfile::Pollux},
                                     {"fifo", SimProfile::Default},    {"optimus-oracle", SimProfile::Default},
                                     {"tiresias", SimProfile::Pollux}, {"optimus-oracle", SimProfile::Pollux},
                                     {"fifo", SimProfile::Default},    {"optimus-oracle", SimProfile::Default}};
  auto simulate_one = [&](const SimCase& r) {
    PolicyOptions options = shared_options;
    options.profile = r.profile == SimProfile::Pollux ? "pollux" : "default";
    SimConfig config;
    config.profile = r.profile;
    config.data_dir = data_dir;
    auto policy = make_policy(r.policy, options);
    return simulate(cluster, workload, r.policy, *policy, config);
  };

  std::vector<SimResult> parallel(runs.size());
  {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < runs.size(); ++i) threads.emplace_back([&, i] { parallel[i] = simulate_one(runs[i]); });
    for (auto& t : threads) t.join();
  }
  // Policies created from the one shared PolicyOptions in several threads at once.
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 50; ++k) make_policy("tiresias", shared_options);
      });
    for (auto& t : threads) t.join();
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const SimResult serial = simulate_one(runs[i]);
    ASSERT_FALSE(serial.timed_out);
    EXPECT_EQ(serial.jobs.size(), workload.jobs.size());
    expect_same_parallel(serial, parallel[i],
                         runs[i].policy + (runs[i].profile == SimProfile::Pollux ? " pollux" : ""));
  }
}

TEST(ParallelSimulation, ProfileCacheLoadsOnceUnderConcurrentFirstUse) {
  const std::string data_dir = std::string(DMLKIT_SOURCE_DIR) + "/data/.//";  // cold cache again
  std::vector<const AppProfile*> seen(8, nullptr);
  std::vector<double> step(8, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      const AppProfile& p = AppProfile::get("cifar10", data_dir);
      seen[t] = &p;
      step[t] = p.packed_step_time_s(512, 12);  // an unlisted placement: the triangulation
    });
  for (auto& t : threads) t.join();
  for (size_t t = 1; t < seen.size(); ++t) {
    EXPECT_EQ(seen[t], seen[0]);
    EXPECT_EQ(step[t], step[0]);
  }
}

}  // namespace
}  // namespace dmlkit::cluster
