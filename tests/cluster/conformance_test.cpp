// Conformance of every registered cluster policy (cluster/registry.cpp): each one runs on a small
// workload of every job kind its entry declares and must keep the family's invariants -- the
// simulator's validation accepts every decision (capacity never exceeded), every job finishes,
// the same seed gives the same result, and the declared knobs are what the policy reads (its
// declared defaults, given explicitly, change nothing). A new policy is covered by registering it.
#include <gtest/gtest.h>

#include "cluster/model/cluster_spec.h"
#include "cluster/policy.h"
#include "cluster/sim/metrics.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "cluster/workload/workload.h"
#include "core/data_dir.h"

namespace dmlkit::cluster {
namespace {

struct Input {
  const char* kind;
  ClusterSpec cluster;
  Workload workload;
  SimConfig config;
};

Input gpu_input() {
  SyntheticSpec s;
  s.num_jobs = 12;
  s.duration_median_s = 600;
  Input in{"GPU", ClusterSpec::homogeneous(4, 4), synthetic_workload(s, 7), {}};
  in.config.round_s = 60;
  return in;
}

Input ps_input() {
  PsWorkloadSpec s;
  s.num_jobs = 6;
  s.arrivals = "window";
  s.window_slots = 2;
  s.slot_s = 600;
  s.max_num_epochs = 1000;
  s.demands = "testbed";
  Input in{"PS",
           ClusterSpec::parse(default_experiments_dir() + "/clusters/optimus-testbed.yaml"),
           ps_workload(s, 3, default_data_dir()),
           {}};
  in.config.round_s = 600;
  in.config.schedule_on_events = false;
  return in;
}

SimResult run_conformance(const std::string& name, const PolicyOptions& options, const Input& in) {
  auto policy = make_policy(name, options);
  return simulate(in.cluster, in.workload, name, *policy, in.config);  // validates every decision
}

void expect_same_conformance(const SimResult& a, const SimResult& b, const std::string& what) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size()) << what;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s) << what << " job " << i;
    EXPECT_EQ(a.jobs[i].first_start_s, b.jobs[i].first_start_s) << what << " job " << i;
  }
  EXPECT_EQ(a.rounds.size(), b.rounds.size()) << what;
}

TEST(PolicyConformance, EveryRegisteredPolicyKeepsTheInvariants) {
  const auto& entries = policy_registry().entries();
  ASSERT_FALSE(entries.empty());
  for (const auto& entry : entries) {
    SCOPED_TRACE(entry.name);
    EXPECT_FALSE(entry.summary.empty());
    EXPECT_TRUE(entry.traits.gpu_jobs || entry.traits.ps_jobs);
    EXPECT_EQ(make_policy(entry.name, {})->handles_ps_jobs(), entry.traits.ps_jobs)
        << "the entry's job kinds must say what the policy does";
    EXPECT_EQ(entry.traits.make_ps != nullptr, !entry.traits.ps_variant.empty());
    // Declared defaults are valid values of their own knobs.
    for (const auto& k : entry.knobs) {
      if (!k.default_value.empty()) {
        EXPECT_NO_THROW(k.check(k.default_value, k.name)) << k.name;
      }
    }

    std::vector<Input> inputs;
    if (entry.traits.gpu_jobs) inputs.push_back(gpu_input());
    if (entry.traits.ps_jobs) inputs.push_back(ps_input());
    if (entry.name == "harmony") {  // its networks are for a number of servers: the bundled model's 6
      inputs.back().cluster = ClusterSpec::parse(default_experiments_dir() + "/clusters/harmony-6.yaml");
    }
    for (const Input& in : inputs) {
      SCOPED_TRACE(in.kind);
      PolicyOptions options;
      options.seed = 5;
      const SimResult a = run_conformance(entry.name, options, in);
      EXPECT_FALSE(a.timed_out);
      const Metrics m = compute_metrics(a);
      EXPECT_EQ(m.finished, in.workload.jobs.size()) << "every job finishes";
      for (const auto& j : a.jobs) EXPECT_GE(j.first_start_s, j.arrival_s);
      expect_same_conformance(a, run_conformance(entry.name, options, in), "same seed, same result");
      // The declared defaults are the defaults the policy uses.
      PolicyOptions explicit_defaults = options;
      for (const auto& k : entry.knobs)
        if (k.shown_default.empty()) explicit_defaults.params[k.name] = k.default_value;
      expect_same_conformance(a, run_conformance(entry.name, explicit_defaults, in),
                              "declared defaults given explicitly");
    }
  }
}

TEST(PolicyConformance, KnobsAreCheckedAgainstTheDeclarations) {
  PolicyOptions o;
  o.params["drf.typo"] = "3";
  EXPECT_THROW(make_policy("drf", o), Error);  // no policy declares it
  EXPECT_THROW(check_policy_params({"drf"}, o.params), Error);
  o.params = {{"fifo.backfill", "1"}};
  EXPECT_NO_THROW(check_policy_params({"fifo", "drf"}, o.params));
  EXPECT_THROW(check_policy_params({"drf"}, o.params), Error);  // a knob of a policy not run
  try {
    check_policy_params({"tiresias"}, {{"tiresias.queue", "2"}});
    FAIL();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("tiresias.queue:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("valid: tiresias.queues"), std::string::npos) << msg;
  }
  EXPECT_THROW(check_policy_params({"tiresias"}, {{"tiresias.queues", "2.5"}}), Error);
  EXPECT_THROW(check_policy_params({"tetris"}, {{"tetris.fairness", "1"}}), Error);  // [0, 1)
  EXPECT_THROW(check_policy_params({"fifo"}, {{"fifo.backfill", "maybe"}}), Error);
  EXPECT_THROW(check_policy_params({"nope"}, {}), Error);
}

}  // namespace
}  // namespace dmlkit::cluster
