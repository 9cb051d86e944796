// `dmlkit cluster train dl2` on a tiny preset: the files it writes, the SL loss falling, resuming
// from a checkpoint, determinism for a seed, a trained model used by `cluster compare`, bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_test_util.h"
#include "core/data_dir.h"
#include "cluster/workload/experiment.h"

namespace dmlkit::testing {
namespace {

// 8 PS jobs on 6 of DL2's servers (jobs run several slots and compete), two evaluation seeds.
std::string dl2_tiny_preset(const TempDir& dir) {
  const std::string cluster = dir.write(
      "tiny6.yaml", "name: tiny6\nservers:\n  - {count: 6, gpus: 2, cpus: 8, mem_gb: 48, net_gbps: 10, name: node}\n");
  return dir.write("dl2-tiny.yaml",
                   "experiment: dl2-tiny\n"
                   "description: test preset\n"
                   "cluster: " +
                       cluster +
                       "\n"
                       "seeds: [1, 2]\n"
                       "policies: [drf-dl2]\n"
                       "speed_model: table\n"
                       "round_s: 1200\n"
                       "restart_delay_s: 0\n"
                       "measure_noise: 0\n"
                       "workload:\n"
                       "  num_jobs: 8\n"
                       "  arrivals: google\n"
                       "  max_arrivals_per_slot: 3\n"
                       "  slot_s: 1200\n"
                       "  max_num_epochs: 3000\n"
                       "  demands: dl2\n");
}

std::vector<std::string> dl2_train_args(const std::string& preset, const std::string& out) {
  return {"cluster", "train",       "dl2", "--experiment",       preset, "--out",     out,  "--sl-steps",
          "40",      "--rl-steps",  "200", "--memory",           "256",  "--batch",   "64", "--train-traces",
          "4",       "--val-every", "50",  "--checkpoint-every", "50",   "--threads", "1"};
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// train_args without --sl-steps (which --init-model refuses: there is no warm-up).
std::vector<std::string> without_sl(std::vector<std::string> args) {
  args.erase(args.begin() + 7, args.begin() + 9);
  return args;
}

TEST(ClusterTrain, WritesModelsCurvesAndResults) {
  TempDir dir("train");
  const std::string preset = dl2_tiny_preset(dir);
  const auto r = run_cli(dl2_train_args(preset, dir.path("out")));
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f :
       {"sl.json", "checkpoint.json", "last.json", "results.json", "training.csv", "report.html", ".dmlkit-output"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir.path("out/") + f)) << f;
  const auto j = nlohmann::json::parse(slurp(dir.path("out/results.json")));
  ASSERT_EQ(j["records"].size(), 4u);
  EXPECT_EQ(j["records"][0]["name"], "drf-dl2");
  EXPECT_EQ(j["records"][1]["name"], "dl2-sl");
  for (const auto& rec : j["records"]) EXPECT_GT(rec["metrics"]["val_avg_jct_s"].get<double>(), 0.0);
  // The model records the command that produced it as a shell command line, one word per argument
  // (the options in their declaration order).
  const auto m = nlohmann::json::parse(slurp(dir.path("out/last.json")));
  EXPECT_EQ(m["meta"]["command"], "dmlkit cluster train dl2 --experiment " + preset + " --out " + dir.path("out") +
                                      " --sl-steps 40 --rl-steps 200 --train-traces 4 --val-every 50"
                                      " --checkpoint-every 50 --batch 64 --memory 256 --threads 1");
  // Reinforcement learning improves the validation JCT over the warm-up (fixed seed).
  EXPECT_LT(j["records"][3]["metrics"]["val_avg_jct_s"].get<double>(),
            j["records"][1]["metrics"]["val_avg_jct_s"].get<double>());
  // The SL loss falls: mean of the last 10 steps below the mean of the first 10.
  std::istringstream csv(slurp(dir.path("out/training.csv")));
  std::string line;
  std::getline(csv, line);
  std::vector<double> sl;
  while (std::getline(csv, line))
    if (line.rfind("sl,", 0) == 0) sl.push_back(std::stod(line.substr(line.find(',', 3) + 1)));
  ASSERT_EQ(sl.size(), 40u);
  double first = 0, last = 0;
  for (int i = 0; i < 10; ++i) {
    first += sl[i];
    last += sl[sl.size() - 1 - i];
  }
  EXPECT_LT(last, first);
  // The trained model schedules through the registry like any policy.
  const auto c = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "dl2,drf-dl2", "--policy-param",
                          "dl2.model=" + dir.path("out/last.json"), "--out", dir.path("cmp"), "--format", "csv"});
  EXPECT_EQ(c.status, 0) << c.err;
}

TEST(ClusterTrain, DeterministicForASeedAndResumable) {
  TempDir dir("train-det");
  const std::string preset = dl2_tiny_preset(dir);
  ASSERT_EQ(run_cli(dl2_train_args(preset, dir.path("a"))).status, 0);
  ASSERT_EQ(run_cli(dl2_train_args(preset, dir.path("b"))).status, 0);
  EXPECT_EQ(slurp(dir.path("a/last.json")).substr(slurp(dir.path("a/last.json")).find("\"nets\"")),
            slurp(dir.path("b/last.json")).substr(slurp(dir.path("b/last.json")).find("\"nets\"")));
  // Resume to 250 RL steps from the checkpoint at 200: the curve keeps the first run's rows (SL
  // and RL steps 1..200, from the training.csv written with the checkpoint) and goes on to 250.
  const std::string before = slurp(dir.path("a/training.csv"));
  auto args = dl2_train_args(preset, dir.path("a"));
  args[10] = "250";  // --rl-steps
  args.push_back("--resume");
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("a/checkpoint.json")));
  EXPECT_EQ(j["meta"]["step"], "250");
  const std::string after = slurp(dir.path("a/training.csv"));
  ASSERT_GT(after.size(), before.size());
  EXPECT_EQ(after.substr(0, before.size()), before);
  std::istringstream lines(after);
  int sl = 0;
  long last_rl = 0;
  bool in_order = true;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("sl,", 0) == 0) ++sl;
    if (line.rfind("rl,", 0) != 0) continue;
    const long step = std::stol(line.substr(3));
    in_order = in_order && step == last_rl + 1;
    last_rl = step;
  }
  EXPECT_EQ(sl, 40);
  EXPECT_EQ(last_rl, 250);
  EXPECT_TRUE(in_order);
}

// Issue 36, item 13: a run cut short while it wrote its checkpoint (a full disk, a kill) leaves
// `checkpoint.json.tmp-PID` beside the last complete checkpoint; --resume continues from that
// checkpoint and removes the stale file instead of refusing the folder.
TEST(ClusterTrain, ResumeIgnoresAStaleCheckpointTmp) {
  TempDir dir("train-stale-tmp");
  const std::string preset = dl2_tiny_preset(dir);
  ASSERT_EQ(run_cli(dl2_train_args(preset, dir.path("a"))).status, 0);
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string stale = dir.path("a/checkpoint.json.tmp-" + std::to_string(dead));
  std::ofstream(stale) << "{\"nets\": {\"pol";  // half a checkpoint
  auto args = dl2_train_args(preset, dir.path("a"));
  args[10] = "250";  // --rl-steps
  args.push_back("--resume");
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir.path("a/checkpoint.json")))["meta"]["step"], "250");
  EXPECT_FALSE(std::filesystem::exists(stale));
}

TEST(ClusterTrain, ParallelActorsAreDeterministicForASeedAndANumberOfActors) {
  TempDir dir("train-actors");
  const std::string preset = dl2_tiny_preset(dir);
  for (const char* out : {"a", "b"}) {
    auto args = dl2_train_args(preset, dir.path(out));
    args.push_back("--actors");
    args.push_back("2");
    const auto r = run_cli(args);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const std::string a = slurp(dir.path("a/last.json")), b = slurp(dir.path("b/last.json"));
  EXPECT_EQ(a.substr(a.find("\"nets\"")), b.substr(b.find("\"nets\"")));
  const auto j = nlohmann::json::parse(slurp(dir.path("a/results.json")));
  EXPECT_EQ(j["inputs"]["actors"], 2);
  EXPECT_GT(j["derived"]["slots_simulated"].get<long>(), 200) << j.dump();  // both actors simulated slots
}

// The in-slot bootstrapped target ([A]) trains, is recorded in the results, and its critic learns
// (the value loss is finite and the run is deterministic like the code's target).
TEST(ClusterTrain, TdTargetTrainsAndIsRecorded) {
  TempDir dir("train-td");
  const std::string preset = dl2_tiny_preset(dir);
  for (const char* out : {"a", "b"}) {
    auto args = dl2_train_args(preset, dir.path(out));
    args.insert(args.end(), {"--target", "td", "--entropy-weight", "0.05", "--rl-lr", "0.0002"});
    const auto r = run_cli(args);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto j = nlohmann::json::parse(slurp(dir.path("a/results.json")));
  EXPECT_EQ(j["inputs"]["target"], "td");
  EXPECT_DOUBLE_EQ(j["inputs"]["entropy_weight"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["inputs"]["rl_lr"].get<double>(), 0.0002);
  const std::string a = slurp(dir.path("a/last.json")), b = slurp(dir.path("b/last.json"));
  EXPECT_EQ(a.substr(a.find("\"nets\"")), b.substr(b.find("\"nets\"")));
  const std::string plain = slurp(dir.path("a/training.csv"));
  EXPECT_EQ(plain.find("nan"), std::string::npos);
}

// The column-shared network ([A], `--net shared`): trains deterministically, the model file records
// its architecture, and `cluster compare` runs the dl2 policy on it.
TEST(ClusterTrain, SharedNetworkTrainsIsRecordedAndRuns) {
  TempDir dir("train-shared");
  const std::string preset = dl2_tiny_preset(dir);
  for (const char* out : {"a", "b"}) {
    auto args = dl2_train_args(preset, dir.path(out));
    args.insert(args.end(), {"--net", "shared", "--no-replay"});
    const auto r = run_cli(args);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto m = nlohmann::json::parse(slurp(dir.path("a/last.json")));
  EXPECT_EQ(m["meta"]["net"], "shared");
  EXPECT_EQ(m["nets"]["policy"]["arch"], "column");
  EXPECT_EQ(m["nets"]["policy"]["column"]["window"], 20);
  EXPECT_FALSE(m["nets"]["value"].contains("arch"));  // the critic stays the code's MLP
  const std::string a = slurp(dir.path("a/last.json")), b = slurp(dir.path("b/last.json"));
  EXPECT_EQ(a.substr(a.find("\"nets\"")), b.substr(b.find("\"nets\"")));
  const auto c = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "dl2", "--policy-param",
                          "dl2.model=" + dir.path("a/last.json"), "--out", dir.path("cmp")});
  ASSERT_EQ(c.status, 0) << c.err;
  // [A] --column-hidden: the column MLP's hidden widths, recorded in the model's shape; it runs.
  auto narrow = dl2_train_args(preset, dir.path("n"));
  narrow.insert(narrow.end(), {"--net", "shared", "--no-replay", "--column-hidden", "16,8"});
  ASSERT_EQ(run_cli(narrow).status, 0);
  const auto n = nlohmann::json::parse(slurp(dir.path("n/last.json")));
  EXPECT_EQ(n["nets"]["policy"]["column"]["hidden"], nlohmann::json::array({16, 8}));
  const auto cn = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "dl2", "--policy-param",
                           "dl2.model=" + dir.path("n/last.json"), "--out", dir.path("cmp-n")});
  EXPECT_EQ(cn.status, 0) << cn.err;
}

// `--init-model` ([A], ours): RL starts from a trained model instead of the warm-up, here a
// column-shared model trained at window 20 continued at window 12; with `--critic-warmup` longer
// than the run, only the critic learns, so the policy network stays the initial model's bit for bit.
// An MLP model of another window or a model of another --net is a one-line error, exit 2.
TEST(ClusterTrain, InitModelContinuesAtAnotherWindowAndCriticWarmupFreezesThePolicy) {
  TempDir dir("train-init");
  const std::string preset = dl2_tiny_preset(dir);
  auto base = dl2_train_args(preset, dir.path("base"));
  base.insert(base.end(), {"--net", "shared", "--no-replay"});
  ASSERT_EQ(run_cli(base).status, 0);
  const std::string model = dir.path("base/last.json");
  auto frozen = dl2_train_args(preset, dir.path("frozen"));
  frozen[10] = "60";  // --rl-steps
  frozen = without_sl(frozen);
  frozen.insert(frozen.end(), {"--net", "shared", "--no-replay", "--window", "12", "--init-model", model,
                               "--critic-warmup", "1000"});
  const auto f = run_cli(frozen);
  ASSERT_EQ(f.status, 0) << f.err;
  const auto init = nlohmann::json::parse(slurp(model));
  const auto last = nlohmann::json::parse(slurp(dir.path("frozen/last.json")));
  EXPECT_EQ(last["nets"]["policy"]["parameters"], init["nets"]["policy"]["parameters"]);
  EXPECT_EQ(last["nets"]["policy"]["column"]["window"], 12);
  EXPECT_NE(last["nets"]["value"]["parameters"], init["nets"]["value"]["parameters"]);  // a fresh, trained critic
  const auto sl = nlohmann::json::parse(slurp(dir.path("frozen/sl.json")));
  EXPECT_EQ(sl["meta"]["stage"], "init-model");
  auto moving = dl2_train_args(preset, dir.path("moving"));
  moving[10] = "60";  // --rl-steps
  moving = without_sl(moving);
  moving.insert(moving.end(), {"--net", "shared", "--no-replay", "--init-model", model, "--critic-warmup", "10"});
  ASSERT_EQ(run_cli(moving).status, 0);
  const auto moved = nlohmann::json::parse(slurp(dir.path("moving/last.json")));
  EXPECT_NE(moved["nets"]["policy"]["parameters"], init["nets"]["policy"]["parameters"]);
  EXPECT_EQ(moved["nets"]["value"]["parameters"].size(), init["nets"]["value"]["parameters"].size());
  auto other_net = without_sl(dl2_train_args(preset, dir.path("other")));
  other_net.insert(other_net.end(), {"--init-model", model});  // --net code from a shared model
  const auto o = run_cli(other_net);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--init-model"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("other")));
  auto warm = dl2_train_args(preset, dir.path("sl"));  // train_args gives --sl-steps: nothing to warm up
  warm.insert(warm.end(), {"--net", "shared", "--init-model", model});
  const auto w = run_cli(warm);
  EXPECT_EQ(w.status, 2);
  EXPECT_NE(w.err.find("--sl-steps"), std::string::npos) << w.err;
  auto missing = without_sl(dl2_train_args(preset, dir.path("missing")));
  missing.insert(missing.end(), {"--init-model", dir.path("nope.json")});
  const auto m = run_cli(missing);
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.err.find("nope.json"), std::string::npos) << m.err;
}

// The paper's configuration (2 x 256 networks, epsilon-greedy job-aware exploration, gamma 0.9) and
// OfflineRL (trained on Optimus's analytic speed model, validated on the preset's table) train and
// are recorded as such.
TEST(ClusterTrain, PaperConfigurationAndOfflineRlTrainAndAreRecorded) {
  TempDir dir("train-paper");
  const std::string preset = dl2_tiny_preset(dir);
  auto args = dl2_train_args(preset, dir.path("p"));
  args[10] = "60";  // --rl-steps
  args[18] = "30";  // --val-every
  args.insert(args.end(), {"--net", "paper", "--exploration", "paper", "--gamma", "0.9", "--train-speed-model",
                           "analytic"});
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("p/results.json")));
  EXPECT_EQ(j["inputs"]["net"], "paper");
  EXPECT_EQ(j["inputs"]["exploration"], "paper");
  EXPECT_DOUBLE_EQ(j["inputs"]["gamma"].get<double>(), 0.9);
  EXPECT_EQ(j["inputs"]["train_speed_model"], "analytic");
  const auto m = nlohmann::json::parse(slurp(dir.path("p/last.json")));
  EXPECT_EQ(m["nets"]["policy"]["hidden"], nlohmann::json::array({256, 256}));
  for (const auto& rec : j["records"]) EXPECT_GT(rec["metrics"]["val_avg_jct_s"].get<double>(), 0.0);
}

// --teacher fixed-dl2 with --teacher-param: the SL warm-up imitates the oracle rule (the
// teacher's validation JCT is the rule's with that knob), and the model file records the knob.
TEST(ClusterTrain, TeacherParamsReachTheTeacherAndAreRecorded) {
  TempDir dir("train-teacher");
  const std::string preset = dl2_tiny_preset(dir);
  auto args = dl2_train_args(preset, dir.path("t"));
  args[10] = "0";  // --rl-steps: the warm-up only
  args.insert(args.end(), {"--teacher", "fixed-dl2", "--teacher-param", "fixed.rule=best-speed"});
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir.path("t/results.json")));
  double teacher = -1;
  for (const auto& rec : j["records"])
    if (rec["name"] == "fixed-dl2") teacher = rec["metrics"]["val_avg_jct_s"].get<double>();
  const auto c = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "fixed-dl2", "--policy-param",
                          "fixed.rule=best-speed", "--out", dir.path("c"), "--format", "json"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NEAR(teacher, avg_jct(nlohmann::json::parse(c.out), "fixed-dl2"), 1e-6);
  const auto m = nlohmann::json::parse(slurp(dir.path("t/sl.json")));
  EXPECT_EQ(m["meta"]["teacher"], "fixed-dl2");
  EXPECT_EQ(m["meta"]["teacher.fixed.rule"], "best-speed");
  EXPECT_NE(m["meta"]["command"].get<std::string>().find("--teacher-param fixed.rule=best-speed"), std::string::npos);
}

TEST(ClusterTrain, BadInputIsOneLineAndExitTwo) {
  TempDir dir("train-bad");
  const std::string preset = dl2_tiny_preset(dir);
  auto args = dl2_train_args(preset, dir.path("x"));
  args.push_back("--teacher");
  args.push_back("tiresias");
  const auto bad_teacher = run_cli(args);
  EXPECT_EQ(bad_teacher.status, 2);
  EXPECT_NE(bad_teacher.err.find("--teacher: tiresias cannot teach DL2"), std::string::npos) << bad_teacher.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("x")));
  auto unknown = dl2_train_args(preset, dir.path("u"));
  unknown.insert(unknown.end(), {"--teacher", "drf-dl3"});
  const auto u = run_cli(unknown);
  EXPECT_EQ(u.status, 2);
  EXPECT_NE(u.err.find("--teacher: unknown policy 'drf-dl3'"), std::string::npos) << u.err;
  auto odd = dl2_train_args(preset, dir.path("odd"));
  odd.insert(odd.end(), {"--actors", "3"});  // the batch of 64 does not split over 3 actors
  const auto o = run_cli(odd);
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--actors"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("odd")));  // no output folder on bad input
  auto resume = dl2_train_args(preset, dir.path("none"));
  resume.push_back("--resume");
  const auto r = run_cli(resume);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("checkpoint"), std::string::npos) << r.err;
  auto td = dl2_train_args(preset, dir.path("td"));
  td.insert(td.end(), {"--target", "td", "--gamma", "0.5"});  // td bootstraps within a slot only
  const auto t = run_cli(td);
  EXPECT_EQ(t.status, 2);
  EXPECT_NE(t.err.find("--target td"), std::string::npos) << t.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("td")));
  auto hidden = dl2_train_args(preset, dir.path("h"));
  hidden.insert(hidden.end(), {"--column-hidden", "32,32"});  // the code's MLP has no column network
  const auto h = run_cli(hidden);
  EXPECT_EQ(h.status, 2);
  EXPECT_NE(h.err.find("--column-hidden"), std::string::npos) << h.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("h")));
  auto tp = dl2_train_args(preset, dir.path("tp"));
  tp.insert(tp.end(), {"--teacher-param", "fixed.ps=4"});  // drf-dl2 has no such knob
  const auto t2 = run_cli(tp);
  EXPECT_EQ(t2.status, 2);
  EXPECT_NE(t2.err.find("--teacher-param fixed.ps"), std::string::npos) << t2.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("tp")));
  const auto m = run_cli({"cluster", "compare", "--experiment", preset, "--policies", "dl2", "--policy-param",
                          "dl2.model=" + dir.path("missing.json"), "--out", dir.path("m")});
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.err.find("missing.json"), std::string::npos) << m.err;
}

}  // namespace
}  // namespace dmlkit::testing
