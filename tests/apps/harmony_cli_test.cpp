// `dmlkit cluster train harmony` on a tiny preset (the files it writes, a training run that improves
// over its start for a fixed seed, determinism), the trained model used by `cluster compare`, and
// bad model files / options: one-line errors, exit status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "harmony_test_preset.h"

namespace dmlkit::testing {
namespace {

// 10 Harmony jobs on 3 GPU servers under contention: they co-locate and interfere.
std::string harmony3_tiny_preset(const TempDir& dir) {
  return harmony_tiny_preset(dir, "harmony-tiny", "h3.yaml", "h3", 3, false);
}

std::vector<std::string> harmony_train_args(const std::string& preset, const std::string& out) {
  return {"cluster", "train",       "harmony", "--experiment",       preset, "--out",           out,   "--jobs",
          "8",       "--new-jobs",  "3",       "--rl-steps",         "150",  "--batch",         "32",  "--memory",
          "128",     "--rm-traces", "3",       "--rm-epochs",        "15",   "--train-traces",  "6",   "--val-traces",
          "3",       "--val-every", "50",      "--checkpoint-every", "50",   "--epsilon-steps", "100", "--threads",
          "1",       "--neurons",   "32",      "--rm-neurons",       "64"};
}

TEST(HarmonyTrain, WritesModelsAndImprovesOverItsStart) {
  TempDir dir("harmony-train");
  const std::string preset = harmony3_tiny_preset(dir);
  const auto r = run_cli(harmony_train_args(preset, dir.path("out")));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"reward.json", "checkpoint.json", "best.json", "last.json", "results.json", "training.csv",
                        "reward_model.csv", "report.html"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir.path("out/") + f)) << f;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  double init = -1, best = -1;
  for (const auto& rec : j["records"]) {
    EXPECT_GT(rec["metrics"]["val_avg_jct_s"].get<double>(), 0.0);
    if (rec["name"] == "harmony-init") init = rec["metrics"]["val_avg_jct_s"].get<double>();
    if (rec["name"] == "harmony-best") best = rec["metrics"]["val_avg_jct_s"].get<double>();
  }
  EXPECT_LT(best, init);  // DRL improved the validation JCT over the initial network (fixed seed)
  EXPECT_GT(j["derived"]["reward_model_holdout_rows"].get<double>(), 0.0);
  EXPECT_LT(j["derived"]["reward_model_holdout_mean_rel_err"].get<double>(), 0.5);
  // Deterministic for a seed: a second run writes the same networks.
  ASSERT_EQ(run_cli(harmony_train_args(preset, dir.path("again"))).status, 0);
  const std::string a = slurp(dir.path("out/last.json")), b = slurp(dir.path("again/last.json"));
  EXPECT_EQ(a.substr(a.find("\"nets\"")), b.substr(b.find("\"nets\"")));
  // The trained model places through the registry like any policy, also with online updates.
  const auto c = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "harmony,lb", "--policy-param",
                          "harmony.model=" + dir.path("out/best.json"), "--out", dir.path("cmp"), "--format", "csv"});
  EXPECT_EQ(c.status, 0) << c.err;
  const auto o = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "harmony", "--policy-param",
                          "harmony.model=" + dir.path("out/best.json"), "--policy-param", "harmony.online_update=1",
                          "--policy-param", "harmony.online_every=2", "--out", dir.path("online"), "--format", "csv"});
  EXPECT_EQ(o.status, 0) << o.err;
}

// The published direction on the testbed (docs/reproduction-harmony.md), with the bundled models
// that harmony.model=auto picks per interference model, on the first two evaluation seeds: under
// `gavel` Harmony places far better than the co-locating heuristics (lb, lif-line; it learned to
// let jobs wait as standalone does), and under `contention` better than bin packing. (That it beats
// EVERY baseline, the target, is not met: within about 1-2% of the best one; the doc.)
TEST(HarmonyModel, BundledModelsBeatTheCoLocatingHeuristicsOnTheTestbed) {
  TempDir dir("harmony-beat");
  auto compare = [&](const std::string& interference, const std::string& policies) {
    const auto r = run_cli({"cluster", "compare", "--experiment", "harmony-testbed", "--seeds", "1,2", "--interference",
                            interference, "--policies", policies, "--out", dir.path(interference), "--format", "json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  const auto g = compare("gavel", "harmony,lb,lif-line");
  ASSERT_TRUE(g.contains("records"));
  EXPECT_LT(avg_jct(g, "harmony"), 0.8 * avg_jct(g, "lb"));
  EXPECT_LT(avg_jct(g, "harmony"), 0.8 * avg_jct(g, "lif-line"));
  const auto c = compare("contention", "harmony,bin-packing");
  ASSERT_TRUE(c.contains("records"));
  EXPECT_LT(avg_jct(c, "harmony"), avg_jct(c, "bin-packing"));
}

// [A] The imitation warm start: imitating the best baseline gives a policy better than the random
// start and within 15% of its teacher on the validation traces (fixed seed; on this tiny preset a
// random network is already within 15%), written as imitation.json; with --defer the model keeps its wait
// actions.
TEST(HarmonyTrain, ImitationWarmStartBeatsTheRandomStart) {
  TempDir dir("harmony-il");
  const std::string preset = harmony3_tiny_preset(dir);
  auto args = harmony_train_args(preset, dir.path("out"));
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--rl-steps") args[i + 1] = "20";
  for (const char* a : {"--imitate", "auto", "--il-steps", "3000", "--il-traces", "40", "--il-lr", "3e-3", "--defer",
                        "--critic-warmup", "10", "--type-counts"})
    args.push_back(a);
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.path("out/imitation.json")));
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_GT(j["derived"]["imitation_samples"].get<double>(), 0.0);
  const std::string teacher = j["derived"]["imitation_teacher"];
  double init = -1, il = -1, teacher_jct = -1;
  for (const auto& rec : j["records"]) {
    if (rec["name"] == "harmony-init") init = rec["metrics"]["val_avg_jct_s"].get<double>();
    if (rec["name"] == "harmony-imitation") il = rec["metrics"]["val_avg_jct_s"].get<double>();
    if (rec["name"] == teacher) teacher_jct = rec["metrics"]["val_avg_jct_s"].get<double>();
  }
  ASSERT_GT(il, 0);
  ASSERT_GT(init, 0);
  EXPECT_LT(il, init) << "random start";
  EXPECT_LT(il, 1.15 * teacher_jct) << "teacher " << teacher << " " << teacher_jct;
  EXPECT_NE(slurp(dir.path("out/best.json")).find("\"defer\": \"on\""), std::string::npos);
  const auto bad = run_cli(
      {"cluster", "train", "harmony", "--experiment", preset, "--imitate", "no-such-placer", "--out", dir.path("bad")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

// --resume from the checkpoint written right after the imitation (a run with --rl-steps 0) gives
// the uninterrupted run's networks bit for bit; a checkpoint of another seed, or none, is a one-line
// error, exit status 2.
TEST(HarmonyTrain, ResumeFromTheImitationCheckpointEqualsTheWholeRun) {
  TempDir dir("harmony-resume");
  const std::string preset = harmony3_tiny_preset(dir);
  auto args = [&](const std::string& out, const std::string& steps) {
    auto v = harmony_train_args(preset, dir.path(out));
    for (size_t i = 0; i + 1 < v.size(); ++i)
      if (v[i] == "--rl-steps") v[i + 1] = steps;
    for (const char* a : {"--imitate", "lb", "--il-steps", "200", "--il-traces", "4", "--critic-warmup", "10",
                          "--reward", "jct", "--gamma", "0.9", "--reward-scale", "jobs-gamma", "--center-advantages"})
      v.push_back(a);
    return v;
  };
  ASSERT_EQ(run_cli(args("whole", "60")).status, 0);
  const auto first = run_cli(args("split", "0"));
  ASSERT_EQ(first.status, 0) << first.err;
  const std::string ck = slurp(dir.path("split/checkpoint.json"));
  EXPECT_NE(ck.find("\"stage\": \"imitation\""), std::string::npos);
  auto resume = args("split", "60");
  resume.push_back("--resume");
  const auto r = run_cli(resume);
  ASSERT_EQ(r.status, 0) << r.err;
  auto nets = [](const std::string& m) { return m.substr(m.find("\"nets\"")); };
  for (const char* f : {"last.json", "checkpoint.json"})
    EXPECT_EQ(nets(slurp(dir.path("whole/") + f)), nets(slurp(dir.path("split/") + f))) << f;
  auto other_seed = resume;
  other_seed.insert(other_seed.end(), {"--seed", "2"});
  const auto s = run_cli(other_seed);
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find("meta.seed"), std::string::npos) << s.err;
  EXPECT_EQ(std::count(s.err.begin(), s.err.end(), '\n'), 1) << s.err;
  const auto none =
      run_cli({"cluster", "train", "harmony", "--experiment", preset, "--resume", "--out", dir.path("nothing")});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("nothing")));
}

TEST(HarmonyTrain, BadModelFilesAndOptionsAreOneLineErrors) {
  TempDir dir("harmony-bad");
  const std::string preset = harmony3_tiny_preset(dir);
  auto compare = [&](const std::string& model) {
    return run_cli({"cluster", "compare", "--experiment", preset, "--policies", "harmony", "--policy-param",
                    "harmony.model=" + model, "--out", dir.path("c")});
  };
  const auto missing = compare(dir.path("missing.json"));
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("missing.json"), std::string::npos) << missing.err;
  const auto corrupt = compare(dir.write("corrupt.json", "{\"kind\": \"harmony\", \"nets\": {"));
  EXPECT_EQ(corrupt.status, 2);
  EXPECT_NE(corrupt.err.find("corrupt.json"), std::string::npos) << corrupt.err;
  EXPECT_EQ(std::count(corrupt.err.begin(), corrupt.err.end(), '\n'), 1) << corrupt.err;
  // The bundled testbed model is for 6 servers; the tiny preset has 3.
  const auto other = compare("harmony-testbed");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("6 servers"), std::string::npos) << other.err;
  const auto unknown = compare("no-such-model");
  EXPECT_EQ(unknown.status, 2);
  const auto bad = run_cli({"cluster", "train", "harmony", "--experiment", preset, "--jobs", "2", "--new-jobs", "3",
                            "--out", dir.path("bad")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path("bad")));
}

}  // namespace
}  // namespace dmlkit::testing
