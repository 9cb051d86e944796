// `dmlkit cluster train dl2 --experiment NAME --out DIR`: trains DL2 (supervised warm-up on a
// teacher heuristic, then reinforcement learning; cluster/train/dl2_train.h) on the preset's
// generated traces and validates on its evaluation seeds. DIR holds the models as they are
// written (sl.json, checkpoint.json, best.json, last.json; --resume continues from
// checkpoint.json), and at the end results.json (teacher, SL and RL models' validation JCT),
// training.csv (the curves) and report.html. See docs/dl2.md.
#include <cmath>
#include <filesystem>
#include <ostream>

#include "cluster/train/dl2_train.h"
#include "cluster/workload/experiment.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/results_table.h"
#include "core/table.h"
#include "core/text_safety.h"
#include "dmlkit/cluster/cluster_train_harmony_common.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

namespace {

// (TrainCliOptions' interference and deep-dive flags are Harmony's; DL2 does not use them.)
struct TrainOptions : TrainCliOptions {
  std::string exploration = "code";
  bool no_replay = false;
  std::string sl_option_given;              // "--sl-steps" / "--sl-lr" when given (no effect with --init-model)
  std::vector<std::string> teacher_params;  // --teacher-param KEY=VALUE
  cl::Dl2TrainConfig c;
};

int run_train_dl2(TrainOptions& o, Context& ctx, const std::vector<std::string>& command) {
  cl::Dl2TrainConfig c = o.c;
  c.experiment = cl::load_experiment(o.experiment, o.experiments_dir);
  if (c.experiment.engine != "sim")
    throw Error(c.experiment.path, 0, "engine", "an OASiS-model preset cannot train DL2 (docs/oasis.md)");
  c.data_dir = o.data_dir;
  c.command = command;
  add_knob_values(c.teacher_params, o.teacher_params, "--teacher-param");
  c.replay = !o.no_replay;
  c.explore.mode = o.exploration == "paper"  ? cl::Dl2Exploration::Paper
                   : o.exploration == "none" ? cl::Dl2Exploration::None
                                             : cl::Dl2Exploration::Code;
  c.val_threads = resolve_threads(o.threads);
  if (!c.init_model.empty() && !o.sl_option_given.empty())
    throw Error(o.sl_option_given + ": has no effect with --init-model (RL starts from that model, without a warm-up)");
  cl::check_dl2_train_config(c);  // before the output folder is created
  const std::string dir = o.out.empty() ? "out/dl2-train-" + c.experiment.name : o.out;
  if (c.resume && !std::filesystem::is_regular_file(std::filesystem::path(dir) / "checkpoint.json"))
    throw Error("--resume: " + dir + " holds no checkpoint.json to continue from");
  prepare_incremental_output(dir,
                             {"sl.json", "checkpoint.json", "best.json", "last.json", "results.json", "records.csv",
                              "summary.csv", "training.csv", "report.html", "report.json"},
                             c.resume);
  ProgressBar sl_bar("dl2 SL", static_cast<double>(c.sl_steps));
  ProgressBar rl_bar("dl2 RL", static_cast<double>(c.rl_steps));
  const cl::Dl2TrainResult r =
      cl::train_dl2(c, dir, [&](const std::string& phase, long step, long, const std::string& d) {
        (phase == "sl" ? sl_bar : rl_bar).update(static_cast<double>(step), d);
      });
  sl_bar.finish();
  rl_bar.finish();

  Results res("cluster train dl2", "model");
  res.inputs()["experiment"] = c.experiment.name;
  res.inputs()["teacher"] = c.teacher;
  res.inputs()["net"] = c.net;
  res.inputs()["window"] = c.window;
  res.inputs()["sl_steps"] = c.sl_steps;
  res.inputs()["rl_steps"] = c.rl_steps;
  res.inputs()["actors"] = c.actors;
  res.inputs()["seed"] = c.seed;
  res.inputs()["exploration"] = o.exploration;
  res.inputs()["gamma"] = c.gamma;
  res.inputs()["replay"] = c.replay;
  res.inputs()["reward"] = c.reward;
  res.inputs()["target"] = c.target;
  res.inputs()["explore_ratio_max"] = c.explore.code_ratio_max;
  res.inputs()["entropy_weight"] = c.entropy_weight;
  res.inputs()["rl_lr"] = c.rl_lr;
  res.inputs()["sl_lr"] = c.sl_lr;
  res.inputs()["train_speed_model"] = c.train_speed_model.empty() ? c.experiment.speed_model : c.train_speed_model;
  res.inputs()["train_traces"] = c.train_traces;
  res.inputs()["init_model"] = c.init_model;
  res.inputs()["critic_warmup"] = c.critic_warmup;
  nlohmann::ordered_json seeds = nlohmann::ordered_json::array();
  for (auto s : c.experiment.seeds) seeds.push_back(s);
  res.inputs()["validation_seeds"] = seeds;
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    add_validation_record(res, c.seed, name, jct, file, step);
  };
  add(c.teacher, r.teacher_val_avg_jct_s, "", 0);
  add(c.init_model.empty() ? "dl2-sl" : "dl2-init", r.sl_val_avg_jct_s, r.sl_model,
      c.init_model.empty() ? c.sl_steps : 0);
  add("dl2-best", r.best_val_avg_jct_s, r.best_model, r.best_step);
  add("dl2-last", r.last_val_avg_jct_s, r.last_model, c.rl_steps);
  res.derived()["slots_simulated"] = r.slots_simulated;
  res.derived()["exploration_override_fraction"] = r.override_fraction;
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_results_files(dir, res);
  write_file_atomic(path("training.csv"), cl::dl2_curve_csv(r.curve));

  HtmlReport page("DL2 training: " + c.experiment.name);
  page.add_facts({{"Experiment", c.experiment.name},
                  {"Teacher", c.teacher},
                  {"Network", c.net + ", window " + std::to_string(c.window)},
                  {"Steps", "SL " + std::to_string(c.sl_steps) + ", RL " + std::to_string(c.rl_steps)},
                  {"Actors", std::to_string(c.actors)},
                  {"Exploration", o.exploration}});
  page.add_table(rounded_records_table(res), "Average JCT (s) on the preset's evaluation seeds");
  LineChart acc{"SL: batch accuracy against the teacher", "SL step", "accuracy", {}, {}, {}, 0.0, 1.0, false};
  ChartSeries a{"accuracy", {}, {}, false};
  LineChart val{"Validation average JCT", "step", "average JCT (s)", {}, {}, {}, {}, {}, false};
  ChartSeries v{"dl2 (RL)", {}, {}, false}, t{c.teacher, {}, {}, false};
  for (const auto& p : r.curve) {
    if (p.phase == "sl" && p.accuracy >= 0) {
      a.x.push_back(static_cast<double>(p.step));
      a.y.push_back(p.accuracy);
    }
    if (p.phase == "rl" && p.val_avg_jct_s >= 0) {
      v.x.push_back(static_cast<double>(p.step));
      v.y.push_back(p.val_avg_jct_s);
    }
  }
  acc.series.push_back(a);
  if (!v.x.empty()) {
    t.x = {0, v.x.back()};
    t.y = {r.teacher_val_avg_jct_s, r.teacher_val_avg_jct_s};
    ChartSeries sl{"after SL", {0, v.x.back()}, {r.sl_val_avg_jct_s, r.sl_val_avg_jct_s}, false};
    val.series = {v, t, sl};
  }
  page.add_chart(acc);
  if (!val.series.empty()) page.add_chart(val);
  write_file_atomic(path("report.html"), page.render(default_chartjs_path()));
  write_file_atomic(path("report.json"), page.to_json().dump() + "\n");

  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << res.records_table().to_csv();
  } else {
    ctx.out << "DL2 on " << terminal_safe(c.experiment.name) << " (validation: " << c.experiment.seeds.size()
            << " evaluation seeds)\n\n"
            << rounded_records_table(res).render();
  }
  print_output_location(ctx, o.format, std::filesystem::absolute(dir).lexically_normal().string());
  return 0;
}

}  // namespace

void add_cluster_train_harmony_command(CLI::App& train, Context& ctx);          // cluster_train_harmony.cpp
void add_cluster_train_harmony_seq2seq_command(CLI::App& train, Context& ctx);  // cluster_train_harmony_seq2seq.cpp

void add_cluster_train_command(CLI::App& cluster, Context& ctx) {
  auto* train = cluster.add_subcommand(
      "train", "Train a learned scheduler (dl2, harmony, harmony-seq2seq) on an experiment preset");
  add_cluster_train_harmony_command(*train, ctx);
  add_cluster_train_harmony_seq2seq_command(*train, ctx);
  train->require_subcommand(1);
  auto& o = ctx.make<TrainOptions>();
  auto& argv = ctx.make<std::vector<std::string>>();
  auto* cmd = train->add_subcommand("dl2", "DL2: supervised warm-up on a heuristic, then reinforcement learning");
  add_train_experiment_options(*cmd, o, "dl2-96");
  cmd->add_option("--teacher", o.c.teacher,
                  "SL teacher: a policy that reports its allocation steps: drf-dl2, fifo-dl2, srtf-dl2, tetris-dl2, "
                  "optimus-dl2, or fixed-dl2 (ours, [A])")
      ->capture_default_str();
  cmd->add_option("--teacher-param", o.teacher_params,
                  "KEY=VALUE: a knob of the teacher (repeatable), e.g. fixed.rule=best-speed");
  cmd->add_option("--net", o.c.net,
                  "Networks: code (the public simulator's), paper (2 x 256) or shared (ours, not DL2's: one "
                  "per-column scorer shared by all columns, docs/dl2.md)")
      ->check(CLI::IsMember({"code", "paper", "shared"}))
      ->capture_default_str();
  cmd->add_option("--column-hidden", o.c.column_hidden,
                  "With --net shared: the column MLP's hidden layer widths (ours; comma-separated)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--window", o.c.window, "Scheduling window L (jobs the network sees)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--sl-steps", o.c.sl_steps, "Supervised updates")->check(at_least(0))->capture_default_str();
  cmd->add_option("--rl-steps", o.c.rl_steps, "Reinforcement-learning updates")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--actors", o.c.actors, "Parallel actors (threads), gradients averaged")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--seed", o.c.seed, "Seed of the networks' initial values, sampling and exploration")
      ->capture_default_str();
  cmd->add_option("--train-traces", o.c.train_traces, "Generated training traces (seeds 1000000 + k)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--val-every", o.c.val_every, "Validate every N RL steps")->check(at_least(1))->capture_default_str();
  cmd->add_option("--checkpoint-every", o.c.checkpoint_every, "Checkpoint every N RL steps")
      ->check(at_least(1))
      ->capture_default_str();
  cmd->add_option("--batch", o.c.batch, "Mini-batch (split over the actors)")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  cmd->add_option("--memory", o.c.memory, "Replay memory per actor (samples)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--exploration", o.exploration, "Job-aware exploration: code, paper or none")
      ->check(CLI::IsMember({"code", "paper", "none"}))
      ->capture_default_str();
  cmd->add_option("--explore-ratio-max", o.c.explore.code_ratio_max,
                  "Code exploration: the per-slot PS/worker ratio is drawn from 3..N (7 in the code)")
      ->check(CLI::Range(3, 64))
      ->capture_default_str();
  cmd->add_option("--gamma", o.c.gamma, "Discount over slots (0: each step's target is its slot's reward, as the code)")
      ->check(CLI::Range(0.0, 0.9999))
      ->capture_default_str();
  cmd->add_option("--reward", o.c.reward,
                  "Step reward: slot (the slot's normalised progress), job (the acting job's; ablation) or "
                  "speedup (ours: each job's progress over what 1 PS + 1 worker would run)")
      ->check(CLI::IsMember({"slot", "job", "speedup"}))
      ->capture_default_str();
  cmd->add_option("--target", o.c.target,
                  "Step target: slot (each step's target is its slot's reward, as the code) or td (ours: the "
                  "next step's value within the slot, the slot's reward for its last step)")
      ->check(CLI::IsMember({"slot", "td"}))
      ->capture_default_str();
  cmd->add_option("--entropy-weight", o.c.entropy_weight, "Weight of the policy's entropy in the actor loss")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--rl-lr", o.c.rl_lr, "Adam learning rate of the RL updates")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd->add_option("--sl-lr", o.c.sl_lr, "Adam learning rate of the supervised warm-up")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd->add_option("--train-speed-model", o.c.train_speed_model,
                  "Speed model of the training simulations: table, formula or analytic (OfflineRL: analytic); "
                  "validation always uses the preset's")
      ->check(CLI::IsMember({"table", "formula", "analytic"}));
  cmd->add_option("--init-model", o.c.init_model,
                  "Start RL from this trained DL2 model (bundled name or path) instead of the supervised warm-up "
                  "(ours; a --net shared model may come from another window)");
  cmd->add_option("--critic-warmup", o.c.critic_warmup,
                  "The first N RL updates train the critic only (policy learning rate 0, the code's "
                  "STEP_TRAIN_CRITIC_NET)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_flag("--no-replay", o.no_replay, "Ablation: train on the latest slot's steps instead of a replay memory");
  cmd->add_flag("--resume", o.c.resume, "Continue from the output folder's checkpoint.json");
  cmd->add_option("--threads", o.threads, "Threads for validation runs (0: all cores)")->check(at_least(0));
  cmd->callback([&o, &ctx, &argv, cmd] {
    argv = given_options(*cmd, "dmlkit cluster train dl2");
    o.sl_option_given = cmd->count("--sl-steps") > 0 ? "--sl-steps" : cmd->count("--sl-lr") > 0 ? "--sl-lr" : "";
    ctx.run = [&o, &ctx, &argv] { return run_train_dl2(o, ctx, argv); };
  });
}

}  // namespace dmlkit::app
