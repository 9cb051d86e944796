// What the two Harmony trainers share (cluster/train/harmony_drl.h): the reward-model sample runs,
// the rm_* meta of a reused or resumed reward model, and the common config checks naming the design;
// the interval loop's rewards (ps_interval_env.h) on a hand-built episode: progress does not charge a
// job that waits, [A] jct charges it like a running one and sums to minus the JCTs; [A] the reward
// scale divides by the trace's jobs (and multiplies by 1 - gamma).
#include <gtest/gtest.h>

#include <memory>
#include <numeric>

#include "cluster/train/harmony_drl.h"
#include "cluster/train/ps_interval_env.h"
#include "core/error.h"

namespace dmlkit::cluster {
namespace {

TEST(HarmonyDrl, SampleRunsAreEachPlacersTracesThenTheRandomShare) {
  HarmonyDrlConfig c;
  c.rm_policies = {"lb", "bin-packing"};
  c.rm_traces = 3;
  c.rm_random = 0.5;  // round(0.5 x 6) = 3 random runs
  const auto runs = sample_runs(c);
  ASSERT_EQ(runs.size(), 9u);
  EXPECT_EQ(runs[0].policy, "lb");
  EXPECT_EQ(runs[2].trace, 2);
  EXPECT_EQ(runs[3].policy, "bin-packing");
  EXPECT_EQ(runs[6].policy, "random");
  EXPECT_EQ(runs[8].trace, 2);
  c.rm_policies.clear();
  c.rm_random = 0;
  const auto alone = sample_runs(c);  // no placer: one random run
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].policy, "random");
}

TEST(HarmonyDrl, FitMetaRoundTrips) {
  learn::RegressionFit fit;
  fit.holdout_rows.resize(17);
  fit.holdout.mse = 0.25;
  fit.holdout.mae = 0.5;
  fit.holdout.mean_rel_err = 0.125;
  fit.train.mean_rel_err = 0.0625;
  std::map<std::string, std::string> meta;
  put_fit_meta(fit, 42, meta);
  learn::RegressionFit back;
  size_t samples = 0;
  get_fit_meta(meta, back, samples);
  EXPECT_EQ(samples, 42u);
  EXPECT_EQ(back.holdout_rows.size(), 17u);
  EXPECT_DOUBLE_EQ(back.holdout.mse, 0.25);
  EXPECT_DOUBLE_EQ(back.holdout.mae, 0.5);
  EXPECT_DOUBLE_EQ(back.holdout.mean_rel_err, 0.125);
  EXPECT_DOUBLE_EQ(back.train.mean_rel_err, 0.0625);
  get_fit_meta({}, back, samples);  // an older file without them: zeros
  EXPECT_EQ(samples, 0u);
  EXPECT_EQ(back.holdout_rows.size(), 0u);
}

TEST(HarmonyDrl, ConfigErrorsNameTheDesignAndTheOption) {
  auto message = [](const HarmonyDrlConfig& c, const std::string& who) {
    try {
      check_harmony_drl_config(c, who);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  HarmonyDrlConfig ok;
  ok.rm_policies = {"lb"};
  EXPECT_EQ(message(ok, "harmony"), "");
  HarmonyDrlConfig c = ok;
  c.memory = c.batch - 1;
  EXPECT_NE(message(c, "harmony-seq2seq").find("harmony-seq2seq training: --batch"), std::string::npos);
  c = ok;
  c.gamma = 1;
  EXPECT_NE(message(c, "harmony").find("harmony training: --gamma"), std::string::npos);
  c = ok;
  c.experiment.seeds = {1000000};
  EXPECT_NE(message(c, "harmony").find("overlaps the training traces"), std::string::npos);
  c = ok;
  c.rm_policies = {"no-such-placer"};
  EXPECT_NE(message(c, "harmony"), "");
  c = ok;
  c.reward = "jcts";
  EXPECT_NE(message(c, "harmony-seq2seq").find("harmony-seq2seq training: --reward must be progress or jct"),
            std::string::npos);
  c = ok;
  c.critic_warmup = -1;
  EXPECT_NE(message(c, "harmony").find("--critic-warmup"), std::string::npos);
}

// The interval loop with a placer that keeps job B waiting for `waits` decisions, and speeds
// given in epochs per second per job.
struct TestRunning {
  const PsJobSpec* spec;
  Placement placement;
};
struct TestPlaced {
  const PsJobSpec* spec;
};
TestPlaced test_placed(const PsJobSpec& s, const Placement&) { return {&s}; }

struct WaitingPlacer {
  const PsJobSpec* held = nullptr;
  int waits = 0;
  void decide(const std::vector<TestRunning>&, const std::vector<const PsJobSpec*>& fresh, std::vector<Placement>& out) {
    out.assign(fresh.size(), Placement{Slice{0, 1, 1, 1}});
    for (size_t f = 0; f < fresh.size(); ++f)
      if (fresh[f] == held && waits > 0) {
        out[f].clear();  // waits for the next interval
        --waits;
      }
  }
};

IntervalEpisode run_two_jobs(IntervalReward reward, int waits, bool per_job = false, double factor = 1.0) {
  // Job A arrives at 0 s with 3 epochs at 2 epochs per interval; job B arrives at 50 s with 1 epoch
  // at 1 epoch per interval; intervals of 100 s.
  const int type = find_ps_job_type("resnet-50");
  const double epoch_size = ps_job_types()[type].epoch_size;
  Workload w;
  for (auto [name, arrival_s, epochs] : {std::tuple{"a", 0.0, 3.0}, std::tuple{"b", 50.0, 1.0}}) {
    auto s = std::make_shared<PsJobSpec>();
    s->type = type;
    s->total_epochs = epochs;
    Job j;
    j.id = static_cast<int>(w.jobs.size());
    j.name = name;
    j.arrival_s = arrival_s;
    j.ps = s;
    w.jobs.push_back(j);
  }
  WaitingPlacer placer{w.jobs[1].ps.get(), waits};
  IntervalEnvConfig c;
  c.round_s = 100;
  c.reward = reward;
  c.reward_per_job = per_job;
  c.reward_factor = factor;
  std::vector<double> seen;
  const auto ep = run_interval_env<TestRunning, TestPlaced>(
      "test", w, placer, c, &test_placed,
      std::function<void(const std::vector<TestPlaced>&, std::vector<double>&)>(
          [&](const std::vector<TestPlaced>& placed, std::vector<double>& sp) {
            sp.clear();
            for (const TestPlaced& p : placed) sp.push_back((p.spec->total_epochs > 2 ? 0.02 : 0.01) * epoch_size);
          }),
      std::function<double(const TestPlaced&)>([](const TestPlaced&) { return 0.0; }),
      [&](double r) { seen.push_back(r); });
  EXPECT_EQ(seen, ep.rewards);
  EXPECT_EQ(ep.unfinished, 0);
  return ep;
}

TEST(HarmonyIntervalEnv, JctRewardChargesWaitingJobsAndSumsToMinusTheJcts) {
  // B waits one decision (placed at 200 s): A finishes at 150 s (JCT 150), B at 300 s (JCT 250).
  const IntervalEpisode waited = run_two_jobs(IntervalReward::jct, 1);
  ASSERT_EQ(waited.rewards.size(), 3u);
  EXPECT_DOUBLE_EQ(waited.rewards[0], -1.5);  // A 100 s + B 50 s since its arrival
  EXPECT_DOUBLE_EQ(waited.rewards[1], -1.5);  // A 50 s until it finishes + B 100 s waiting
  EXPECT_DOUBLE_EQ(waited.rewards[2], -1.0);  // B 100 s running
  EXPECT_DOUBLE_EQ(waited.avg_jct_s, 200.0);
  EXPECT_DOUBLE_EQ(std::accumulate(waited.rewards.begin(), waited.rewards.end(), 0.0), -(150.0 + 250.0) / 100);
  // Placed at once (100 s): B finishes at 200 s, one interval less to be charged.
  const IntervalEpisode at_once = run_two_jobs(IntervalReward::jct, 0);
  ASSERT_EQ(at_once.rewards.size(), 2u);
  EXPECT_DOUBLE_EQ(at_once.rewards[1], -1.5);  // A 50 s + B 100 s running
  EXPECT_DOUBLE_EQ(std::accumulate(at_once.rewards.begin(), at_once.rewards.end(), 0.0), -(150.0 + 150.0) / 100);
  // DL2's progress does not see the wait: B's interval of waiting earns what A earns alone, and
  // every episode's rewards sum to the number of jobs whatever the waiting.
  const IntervalEpisode progress = run_two_jobs(IntervalReward::progress, 1);
  ASSERT_EQ(progress.rewards.size(), 3u);
  EXPECT_DOUBLE_EQ(progress.rewards[0], 2.0 / 3);
  EXPECT_DOUBLE_EQ(progress.rewards[1], 1.0 / 3);
  EXPECT_DOUBLE_EQ(progress.rewards[2], 1.0);
  const IntervalEpisode progress_at_once = run_two_jobs(IntervalReward::progress, 0);
  EXPECT_DOUBLE_EQ(std::accumulate(progress_at_once.rewards.begin(), progress_at_once.rewards.end(), 0.0), 2.0);
  EXPECT_EQ(parse_interval_reward("jct", "x"), IntervalReward::jct);
  EXPECT_THROW(parse_interval_reward("speedup", "x"), Error);
}

// [A] --reward-scale: jobs divides each interval's reward by the trace's jobs (2 here), jobs-gamma
// also multiplies it by 1 - gamma; the trainer's config sets the environment accordingly.
TEST(HarmonyIntervalEnv, RewardScaleDividesByTheJobsAndTheHorizon) {
  const IntervalEpisode plain = run_two_jobs(IntervalReward::jct, 1);
  const IntervalEpisode jobs = run_two_jobs(IntervalReward::jct, 1, true);
  const IntervalEpisode both = run_two_jobs(IntervalReward::jct, 1, true, 0.1);
  ASSERT_EQ(jobs.rewards.size(), plain.rewards.size());
  ASSERT_EQ(both.rewards.size(), plain.rewards.size());
  for (size_t k = 0; k < plain.rewards.size(); ++k) {
    EXPECT_DOUBLE_EQ(jobs.rewards[k], plain.rewards[k] / 2);
    EXPECT_DOUBLE_EQ(both.rewards[k], plain.rewards[k] / 2 * 0.1);
  }
  EXPECT_DOUBLE_EQ(both.avg_jct_s, plain.avg_jct_s);  // the episode itself is unchanged
  HarmonyDrlConfig c;
  c.reward = "jct";
  c.gamma = 0.9;
  IntervalEnvConfig env;
  set_interval_reward(c, "harmony", env);
  EXPECT_EQ(env.reward, IntervalReward::jct);
  EXPECT_FALSE(env.reward_per_job);
  EXPECT_EQ(env.reward_factor, 1.0);
  c.reward_scale = "jobs";
  set_interval_reward(c, "harmony", env);
  EXPECT_TRUE(env.reward_per_job);
  EXPECT_EQ(env.reward_factor, 1.0);
  c.reward_scale = "jobs-gamma";
  set_interval_reward(c, "harmony", env);
  EXPECT_TRUE(env.reward_per_job);
  EXPECT_NEAR(env.reward_factor, 0.1, 1e-12);
  c.reward_scale = "trace";
  c.rm_policies = {"lb"};
  try {
    check_harmony_drl_config(c, "harmony-seq2seq");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("harmony-seq2seq training: --reward-scale must be"), std::string::npos);
  }
}

}  // namespace
}  // namespace dmlkit::cluster
