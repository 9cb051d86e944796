// What the two Harmony trainers share (cluster/train/harmony_drl.h): the reward-model sample runs,
// the rm_* meta of a reused or resumed reward model, and the common config checks naming the design.
#include <gtest/gtest.h>

#include "cluster/train/harmony_drl.h"
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
}

}  // namespace
}  // namespace dmlkit::cluster
