// `dmlkit cluster train harmony-seq2seq` on a tiny preset with PS and all-reduce jobs (the files it
// writes, determinism, --resume), the trained model used by `cluster compare` on the tiny preset and
// on a cluster of another size, and bad model files: one-line errors, exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "harmony_test_preset.h"

namespace dmlkit::testing {
namespace {

// The tiny Harmony preset with half of the jobs all-reduce, on `servers` servers.
std::string preset(const TempDir& dir, const std::string& name, int servers) {
  return harmony_tiny_preset(dir, name, name + "-cluster.yaml", name, servers, true);
}

std::vector<std::string> seq2seq_train_args(const std::string& p, const std::string& out, const std::string& steps) {
  return {"cluster",      "train",        "harmony-seq2seq", "--experiment", p,         "--out",
          out,            "--rl-steps",   steps,             "--batch",      "16",      "--memory",
          "64",           "--rm-traces",  "2",               "--rm-epochs",  "4",       "--train-traces",
          "3",            "--val-traces", "2",               "--val-every",  "10",      "--checkpoint-every",
          "10",           "--threads",    "1",               "--embed",      "8",       "--heads",
          "2",            "--rm-embed",   "8",               "--rm-heads",   "2",       "--rm-policies",
          "lb,bin-packing", "--max-jobs", "12"};
}

TEST(HarmonySeq2SeqTrain, WritesModelsResumesAndRunsOnAnotherClusterSize) {
  TempDir dir("s2s-train");
  const std::string p = preset(dir, "s2s-tiny", 3);
  const auto r = run_cli(seq2seq_train_args(p, dir.path("out"), "20"));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"reward.json", "checkpoint.json", "best.json", "last.json", "results.json", "training.csv",
                        "reward_model.csv", "report.html"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir.path("out/") + f)) << f;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  for (const auto& rec : j["records"]) EXPECT_GT(rec["metrics"]["val_avg_jct_s"].get<double>(), 0.0);
  EXPECT_GT(j["derived"]["reward_model_holdout_rows"].get<double>(), 0.0);
  EXPECT_GT(j["derived"]["reward_model_holdout_mean_rel_err"].get<double>(), 0.0);
  // Deterministic for a seed.
  ASSERT_EQ(run_cli(seq2seq_train_args(p, dir.path("again"), "20")).status, 0);
  const std::string a = slurp(dir.path("out/last.json")), b = slurp(dir.path("again/last.json"));
  auto nets = [](const std::string& m) {  // the networks, not the meta (its command names the folder)
    const size_t from = m.find("\"extra\""), to = m.find("\"format\"");
    return m.substr(from, to - from);
  };
  EXPECT_EQ(nets(a), nets(b));
  // Resume continues from step 20 to 30.
  const auto res = run_cli([&] {
    auto v = seq2seq_train_args(p, dir.path("out"), "30");
    v.push_back("--resume");
    return v;
  }());
  ASSERT_EQ(res.status, 0) << res.err;
  const std::string ck = slurp(dir.path("out/checkpoint.json"));
  EXPECT_NE(ck.find("\"step\": \"30\""), std::string::npos);
  // The model places through the registry on the 3-server preset and on a 7-server one.
  const std::string big = preset(dir, "s2s-seven", 7);
  for (const std::string& e : {p, big}) {
    const auto c = run_cli({"cluster", "compare", "--experiment", e, "--policies", "harmony-seq2seq,lb",
                            "--policy-param", "harmony-seq2seq.model=" + dir.path("out/best.json"), "--out",
                            dir.path("cmp-" + std::filesystem::path(e).stem().string()), "--format", "csv"});
    EXPECT_EQ(c.status, 0) << c.err;
  }
}

TEST(HarmonySeq2SeqTrain, BadModelFilesAndOptionsAreOneLineErrors) {
  TempDir dir("s2s-bad");
  const std::string p = preset(dir, "s2s-tiny", 3);
  auto compare = [&](const std::string& model) {
    return run_cli({"cluster", "compare", "--experiment", p, "--policies", "harmony-seq2seq", "--policy-param",
                    "harmony-seq2seq.model=" + model, "--out", dir.path("c")});
  };
  for (const auto& bad : {dir.path("missing.json"), dir.write("corrupt.json", "{\"kind\": \"harmony-seq2seq\", \"extra\": {"),
                          dir.write("foreign.json", "{\"kind\": \"dl2\", \"meta\": {}, \"nets\": {}}")}) {
    const auto r = compare(bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find(std::filesystem::path(bad).filename().string()), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(compare("no-such-model").status, 2);
  const auto opt = run_cli({"cluster", "train", "harmony-seq2seq", "--experiment", p, "--embed", "10", "--heads", "4",
                            "--out", dir.path("bad")});
  EXPECT_EQ(opt.status, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path("bad")));
  const auto nores = run_cli({"cluster", "train", "harmony-seq2seq", "--experiment", p, "--resume", "--out",
                              dir.path("nothing")});
  EXPECT_EQ(nores.status, 2) << nores.err;
}

}  // namespace
}  // namespace dmlkit::testing

namespace dmlkit::testing {
namespace {

// Each of `bad` added to a short training of preset p: exit status 2, one line on stderr, no
// output folder written.
void expect_bad_options(const TempDir& dir, const std::string& p, const std::vector<std::vector<std::string>>& bad) {
  for (const std::vector<std::string>& extra : bad) {
    auto v = seq2seq_train_args(p, dir.path("bad"), "10");
    v.insert(v.end(), extra.begin(), extra.end());
    const auto b = run_cli(v);
    EXPECT_EQ(b.status, 2) << extra[0] << " " << extra[1];
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << extra[0] << ": " << b.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path("bad"))) << extra[0];
  }
}

// [A] --defer --imitate standalone: the imitation runs, its accuracy on the teacher's steps is
// reported and above what a uniform draw among the allowed targets scores; the models keep the
// wait target (meta defer) and place through `cluster compare`; bad values are one-line errors.
TEST(HarmonySeq2SeqTrain, DeferAndImitationWarmStart) {
  TempDir dir("s2s-il");
  const std::string p = preset(dir, "s2s-il", 3);
  auto args = seq2seq_train_args(p, dir.path("out"), "10");
  for (const char* a : {"--defer", "--imitate", "standalone", "--il-steps", "300", "--il-traces", "4", "--il-lr", "3e-3"})
    args.push_back(a);
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.path("out/imitation.json")));
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_EQ(j["derived"]["imitation_teacher"], "standalone");
  EXPECT_GT(j["derived"]["imitation_samples"].get<double>(), 0.0);
  const double acc = j["derived"]["imitation_accuracy"].get<double>(), chance = j["derived"]["imitation_chance"].get<double>();
  EXPECT_GT(chance, 0.0);
  EXPECT_GT(acc, chance + 0.1) << "accuracy " << acc << ", chance " << chance;
  bool il_record = false;
  for (const auto& rec : j["records"]) il_record |= rec["name"] == "harmony-seq2seq-imitation";
  EXPECT_TRUE(il_record);
  for (const char* f : {"imitation.json", "best.json", "last.json"})
    EXPECT_NE(slurp(dir.path("out/") + f).find("\"defer\": \"on\""), std::string::npos) << f;
  const auto c = run_cli({"cluster", "compare", "--experiment", p, "--policies", "harmony-seq2seq", "--policy-param",
                          "harmony-seq2seq.model=" + dir.path("out/last.json"), "--out", dir.path("cmp"), "--format", "csv"});
  EXPECT_EQ(c.status, 0) << c.err;
  expect_bad_options(dir, p, {{"--imitate", "no-such-placer"}, {"--il-lr", "0"}, {"--il-steps", "-1"}});
}

// [A] The knobs of the 2026-12-03 gavel work: --reward-scale, --center-advantages, --job-exploration
// and --rollout simulator train (on the real simulator: updates happen, the inputs and the model's
// meta record them); bad values are one-line errors, exit status 2, before any folder is written.
TEST(HarmonySeq2SeqTrain, ScaledCentredJobExplorationAndSimulatorRollout) {
  TempDir dir("s2s-gavel");
  const std::string p = preset(dir, "s2s-gv", 3);
  auto args = seq2seq_train_args(p, dir.path("out"), "20");
  for (const char* a : {"--defer", "--reward", "jct", "--gamma", "0.5", "--reward-scale", "jobs-gamma",
                        "--center-advantages", "--job-exploration", "occupied", "--rollout", "simulator",
                        "--epsilon-start", "0.5"})
    args.push_back(a);
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  EXPECT_EQ(j["inputs"]["rollout"], "simulator");
  EXPECT_EQ(j["inputs"]["reward_scale"], "jobs-gamma");
  EXPECT_EQ(j["inputs"]["center_advantages"], true);
  EXPECT_EQ(j["inputs"]["job_exploration"], "occupied");
  EXPECT_GT(j["derived"]["intervals_simulated"].get<double>(), 0.0);
  EXPECT_GT(j["derived"]["explored_fraction"].get<double>(), 0.0);
  const std::string last = slurp(dir.path("out/last.json"));
  for (const char* m : {"\"rollout\": \"simulator\"", "\"reward_scale\": \"jobs-gamma\"", "\"center_advantages\": \"on\"",
                        "\"job_exploration\": \"occupied\""})
    EXPECT_NE(last.find(m), std::string::npos) << m;
  EXPECT_NE(slurp(dir.path("out/training.csv")).find("\n20,"), std::string::npos);
  expect_bad_options(dir, p,
                     {{"--reward-scale", "trace"}, {"--job-exploration", "all"}, {"--rollout", "sim"},
                      {"--rollout", "simulator"}, {"--rollout", "simulator", "--reward", "jct"}});
}

}  // namespace
}  // namespace dmlkit::testing
