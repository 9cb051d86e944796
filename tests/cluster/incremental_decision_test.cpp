// The simulator's hints for incremental policies (ClusterView::free_gpus, jobs_unchanged,
// same_job_list, departed and num_arrived, changes; docs/cluster-simulator.md): they tell the truth, a policy that uses
// them decides exactly as it does without them, and listed changes are checked like a full decision.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cluster/policy.h"
#include "cluster/sim/simulator.h"
#include "cluster/workload/workload.h"
#include "trace_job.h"

namespace dmlkit::cluster {
namespace {

// Runs a policy without the hints: what every caller that does not keep them gives.
class WithoutHints final : public Policy {
 public:
  explicit WithoutHints(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    ClusterView plain;
    plain.cluster = view.cluster;
    plain.now_s = view.now_s;
    plain.round_s = view.round_s;
    inner_->schedule(plain, jobs, out);
  }

 private:
  std::unique_ptr<Policy> inner_;
};

// Checks the hints against the views at every decision, then delegates.
class HintChecker final : public Policy {
 public:
  explicit HintChecker(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    ++calls;
    std::vector<int> free;
    for (const auto& s : view.cluster->servers) free.push_back(s.gpus);
    for (const auto& v : jobs)
      for (const auto& s : v.placement) free[s.server] -= s.gpus;
    ASSERT_EQ(view.free_gpus.size(), free.size());
    for (size_t s = 0; s < free.size(); ++s) ASSERT_EQ(view.free_gpus[s], free[s]) << "server " << s;
    ASSERT_NE(view.changes, nullptr);
    EXPECT_FALSE(view.changes->listed);
    EXPECT_TRUE(view.changes->indices.empty());
    if (view.jobs_unchanged || view.same_job_list) {
      ASSERT_EQ(jobs.size(), last_.size());
      for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(jobs[i].job, last_[i].first);
    }
    if (view.jobs_unchanged) {
      ++unchanged;
      ASSERT_EQ(jobs.size(), last_.size());
      for (size_t i = 0; i < jobs.size(); ++i) {
        EXPECT_EQ(jobs[i].job, last_[i].first);
        EXPECT_EQ(jobs[i].placement, last_[i].second);
      }
    }
    if (view.same_job_list) ++same_list;
    // The account of the change: the previous list without `departed`, then num_arrived new jobs.
    ASSERT_GE(view.num_arrived, 0);
    std::vector<const Job*> expected;
    size_t d = 0;
    for (size_t i = 0; i < last_.size(); ++i) {
      if (d < view.departed.size() && static_cast<size_t>(view.departed[d]) == i) {
        ++d;
        continue;
      }
      expected.push_back(last_[i].first);
    }
    EXPECT_EQ(d, view.departed.size());
    ASSERT_EQ(expected.size() + static_cast<size_t>(view.num_arrived), jobs.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(jobs[i].job, expected[i]);
    departed += static_cast<int>(view.departed.size());
    last_.clear();
    for (const auto& v : jobs) last_.emplace_back(v.job, v.placement);
    inner_->schedule(view, jobs, out);
  }
  int calls = 0, unchanged = 0, same_list = 0, departed = 0;

 private:
  std::unique_ptr<Policy> inner_;
  std::vector<std::pair<const Job*, Placement>> last_;
};

void expect_same_hints(const SimResult& a, const SimResult& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].first_start_s, b.jobs[i].first_start_s) << a.jobs[i].name;
    EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s) << a.jobs[i].name;
    EXPECT_EQ(a.jobs[i].gpu_s, b.jobs[i].gpu_s) << a.jobs[i].name;
    EXPECT_EQ(a.jobs[i].preemptions, b.jobs[i].preemptions) << a.jobs[i].name;
    EXPECT_EQ(a.jobs[i].restarts, b.jobs[i].restarts) << a.jobs[i].name;
  }
  ASSERT_EQ(a.rounds.size(), b.rounds.size());
  for (size_t i = 0; i < a.rounds.size(); ++i) {
    EXPECT_EQ(a.rounds[i].time_s, b.rounds[i].time_s);
    EXPECT_EQ(a.rounds[i].gpus_busy, b.rounds[i].gpus_busy);
    EXPECT_EQ(a.rounds[i].running_jobs, b.rounds[i].running_jobs);
  }
}

struct Case {
  std::string policy;
  PlacementKind placement;
  std::map<std::string, std::string> params;
};

TEST(IncrementalDecisions, PoliciesDecideTheSameWithAndWithoutTheHints) {
  SyntheticSpec spec;
  spec.num_jobs = 600;
  spec.arrival_rate_per_s = 1.0 / 40.0;  // overloaded: long queues, head-of-line blocking
  spec.gpu_choices = {1, 2, 4, 8, 12};
  spec.gpu_weights = {0.5, 0.2, 0.15, 0.1, 0.05};
  const Workload w = synthetic_workload(spec, 7);
  const ClusterSpec cluster = ClusterSpec::homogeneous(6, 4);
  const std::vector<Case> cases = {
      {"fifo", PlacementKind::Consolidate, {}},
      {"fifo", PlacementKind::Spread, {}},
      {"fifo", PlacementKind::MostFree, {{"fifo.backfill", "1"}}},
      {"tiresias", PlacementKind::Consolidate, {}},
      {"tiresias", PlacementKind::FirstFit, {{"tiresias.promote_knob", "0"}}},
      {"tiresias",
       PlacementKind::MostFree,
       {{"tiresias.service", "time"}, {"tiresias.wakeup", "whole-s"}, {"tiresias.pending_to_tail", "0"}}},
      {"tiresias", PlacementKind::Spread, {{"tiresias.wakeup", "none"}}},
      {"srtf", PlacementKind::Consolidate, {}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.policy + " " + placement_kind_name(c.placement));
    for (bool on_events : {true, false}) {
      PolicyOptions o;
      o.placement = c.placement;
      o.params = c.params;
      SimConfig config;
      config.schedule_on_events = on_events;
      HintChecker checked(make_policy(c.policy, o));
      WithoutHints plain(make_policy(c.policy, o));
      const SimResult with = simulate(cluster, w, c.policy, checked, config);
      const SimResult without = simulate(cluster, w, c.policy, plain, config);
      ASSERT_FALSE(with.timed_out);
      expect_same_hints(with, without);
      EXPECT_GT(checked.unchanged, 0);                  // rounds with nothing new happen
      EXPECT_GT(checked.same_list, checked.unchanged);  // and decisions that only moved jobs
      EXPECT_GT(checked.departed, 0);
    }
  }
}

// A trace like Philly's (mostly 1-GPU jobs, a few wide ones) on a loaded cluster: many demotions,
// promotions and preemptions, queues whose waiting jobs mostly cannot start (tiresias' split walk
// skips them, its heaps find the due jobs). Decisions with the hints equal those without.
TEST(IncrementalDecisions, TiresiasDecidesTheSameOnAMostlyOneGpuTrace) {
  SyntheticSpec spec;
  spec.num_jobs = 1500;
  spec.arrival_rate_per_s = 1.0 / 30.0;
  spec.gpu_choices = {1, 2, 4, 8, 16};
  spec.gpu_weights = {0.9, 0.03, 0.03, 0.03, 0.01};
  const Workload w = synthetic_workload(spec, 11);
  const ClusterSpec cluster = ClusterSpec::homogeneous(4, 8);
  for (const char* wakeup : {"exact", "none"}) {
    SCOPED_TRACE(wakeup);
    PolicyOptions o;
    o.params = {{"tiresias.wakeup", wakeup}};
    HintChecker checked(make_policy("tiresias", o));
    WithoutHints plain(make_policy("tiresias", o));
    const SimResult with = simulate(cluster, w, "tiresias", checked, SimConfig{});
    const SimResult without = simulate(cluster, w, "tiresias", plain, SimConfig{});
    ASSERT_FALSE(with.timed_out);
    expect_same_hints(with, without);
    int preemptions = 0;
    for (const auto& j : with.jobs) preemptions += j.preemptions;
    EXPECT_GT(preemptions, 100);
  }
}

// Lists a change that puts a job on a full server: rejected as in a full decision.
class OverListing final : public Policy {
 public:
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override {
    view.changes->listed = true;
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].running()) continue;
      out[i] = {{0, jobs[i].job->num_gpus}};
      view.changes->indices.push_back(static_cast<int>(i));
    }
  }
};

class OutOfRangeListing final : public Policy {
 public:
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement>) override {
    view.changes->listed = true;
    view.changes->indices.push_back(static_cast<int>(jobs.size()));
  }
};

TEST(IncrementalDecisions, ListedChangesAreValidated) {
  Workload w;
  w.jobs = {trace_job(0, 0, 3, 100), trace_job(1, 0, 2, 100)};
  const ClusterSpec cluster = ClusterSpec::homogeneous(2, 4);
  OverListing over;
  try {
    simulate(cluster, w, "over", over, SimConfig{});
    FAIL() << "an over-capacity listed change was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("over capacity"), std::string::npos) << e.what();
  }
  OutOfRangeListing range;
  EXPECT_THROW(simulate(cluster, w, "range", range, SimConfig{}), std::logic_error);
}

}  // namespace
}  // namespace dmlkit::cluster
