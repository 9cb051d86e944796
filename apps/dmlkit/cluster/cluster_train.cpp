// `dmlkit cluster train dl2 --experiment NAME --out DIR`: trains DL2 (supervised warm-up on a
// teacher heuristic, then reinforcement learning; cluster/train/dl2_train.h) on the preset's
// generated traces and validates on its evaluation seeds. DIR holds the models as they are
// written (sl.json, checkpoint.json, best.json, last.json; --resume continues from
// checkpoint.json), and at the end results.json (teacher, SL and RL models' validation JCT),
// training.csv (the curves) and report.html. See docs/dl2.md.
#include <filesystem>
#include <ostream>

#include "cluster/train/run.h"
#include "core/knobs.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "core/results_table.h"
#include "core/text_safety.h"
#include "dmlkit/cluster/cluster_train_common.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

namespace {

struct Dl2TrainOptions : TrainCliOptions {
  cl::Dl2TrainSpec spec;
  std::vector<std::string> teacher_params;  // --teacher-param KEY=VALUE
};

int run_train_dl2(Dl2TrainOptions& o, Context& ctx) {
  cl::Dl2TrainSpec& spec = o.spec;
  add_knob_values(spec.knobs.teacher_params, o.teacher_params, "--teacher-param");
  spec.replay = !o.no_replay;
  cl::check(spec);  // before the output folder is created
  const std::string dir = cl::train_dir(spec);
  prepare_incremental_output(dir,
                             {"sl.json", "checkpoint.json", "best.json", "last.json", "results.json", "records.csv",
                              "summary.csv", "training.csv", "report.html", "report.json"},
                             spec.knobs.resume);
  ProgressBar sl_bar("dl2 SL", static_cast<double>(spec.knobs.sl_steps));
  ProgressBar rl_bar("dl2 RL", static_cast<double>(spec.knobs.rl_steps));
  const cl::Dl2TrainRun r = cl::run(spec, [&](const std::string& phase, long step, long, const std::string& d) {
    (phase == "sl" ? sl_bar : rl_bar).update(static_cast<double>(step), d);
  });
  sl_bar.finish();
  rl_bar.finish();

  write_results_files(dir, r.results);
  write_in(dir, "training.csv", r.training_csv);
  write_in(dir, "report.html", r.report.render(default_chartjs_path()));
  write_in(dir, "report.json", r.report.to_json().dump() + "\n");

  if (o.format == "json") {
    ctx.out << r.results.json_text();
  } else if (o.format == "csv") {
    ctx.out << r.results.records_table().to_csv();
  } else {
    ctx.out << "DL2 on " << terminal_safe(r.config.experiment.name)
            << " (validation: " << r.config.experiment.seeds.size() << " evaluation seeds)\n\n"
            << rounded_records_table(r.results).render();
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
  auto& o = ctx.make<Dl2TrainOptions>();
  auto* cmd = train->add_subcommand("dl2", "DL2: supervised warm-up on a heuristic, then reinforcement learning");
  add_train_experiment_options(*cmd, o.spec.source, o, "dl2-96");
  cmd->add_option("--teacher", o.spec.knobs.teacher,
                  "SL teacher: a policy that reports its allocation steps: drf-dl2, fifo-dl2, srtf-dl2, tetris-dl2, "
                  "optimus-dl2, or fixed-dl2 (ours, [A])")
      ->capture_default_str();
  cmd->add_option("--teacher-param", o.teacher_params,
                  "KEY=VALUE: a knob of the teacher (repeatable), e.g. fixed.rule=best-speed");
  cmd->add_option("--net", o.spec.knobs.net,
                  "Networks: code (the public simulator's), paper (2 x 256) or shared (ours, not DL2's: one "
                  "per-column scorer shared by all columns, docs/dl2.md)")
      ->check(CLI::IsMember({"code", "paper", "shared"}))
      ->capture_default_str();
  cmd->add_option("--column-hidden", o.spec.knobs.column_hidden,
                  "With --net shared: the column MLP's hidden layer widths (ours; comma-separated)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--window", o.spec.knobs.window, "Scheduling window L (jobs the network sees)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--sl-steps", o.spec.knobs.sl_steps, "Supervised updates")->check(at_least(0))->capture_default_str();
  cmd->add_option("--rl-steps", o.spec.knobs.rl_steps, "Reinforcement-learning updates")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--actors", o.spec.knobs.actors, "Parallel actors (threads), gradients averaged")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--seed", o.spec.knobs.seed, "Seed of the networks' initial values, sampling and exploration")
      ->capture_default_str();
  cmd->add_option("--train-traces", o.spec.knobs.train_traces, "Generated training traces (seeds 1000000 + k)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--val-every", o.spec.knobs.val_every, "Validate every N RL steps")
      ->check(at_least(1))
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", o.spec.knobs.checkpoint_every, "Checkpoint every N RL steps")
      ->check(at_least(1))
      ->capture_default_str();
  cmd->add_option("--batch", o.spec.knobs.batch, "Mini-batch (split over the actors)")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  cmd->add_option("--memory", o.spec.knobs.memory, "Replay memory per actor (samples)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--exploration", o.spec.exploration, "Job-aware exploration: code, paper or none")
      ->check(CLI::IsMember({"code", "paper", "none"}))
      ->capture_default_str();
  cmd->add_option("--explore-ratio-max", o.spec.knobs.explore.code_ratio_max,
                  "Code exploration: the per-slot PS/worker ratio is drawn from 3..N (7 in the code)")
      ->check(CLI::Range(3, 64))
      ->capture_default_str();
  cmd->add_option("--gamma", o.spec.knobs.gamma,
                  "Discount over slots (0: each step's target is its slot's reward, as the code)")
      ->check(CLI::Range(0.0, 0.9999))
      ->capture_default_str();
  cmd->add_option("--reward", o.spec.knobs.reward,
                  "Step reward: slot (the slot's normalised progress), job (the acting job's; ablation) or "
                  "speedup (ours: each job's progress over what 1 PS + 1 worker would run)")
      ->check(CLI::IsMember({"slot", "job", "speedup"}))
      ->capture_default_str();
  cmd->add_option("--target", o.spec.knobs.target,
                  "Step target: slot (each step's target is its slot's reward, as the code) or td (ours: the "
                  "next step's value within the slot, the slot's reward for its last step)")
      ->check(CLI::IsMember({"slot", "td"}))
      ->capture_default_str();
  cmd->add_option("--entropy-weight", o.spec.knobs.entropy_weight, "Weight of the policy's entropy in the actor loss")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--rl-lr", o.spec.knobs.rl_lr, "Adam learning rate of the RL updates")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd->add_option("--sl-lr", o.spec.knobs.sl_lr, "Adam learning rate of the supervised warm-up")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd->add_option("--train-speed-model", o.spec.knobs.train_speed_model,
                  "Speed model of the training simulations: table, formula or analytic (OfflineRL: analytic); "
                  "validation always uses the preset's")
      ->check(CLI::IsMember({"table", "formula", "analytic"}));
  cmd->add_option("--init-model", o.spec.knobs.init_model,
                  "Start RL from this trained DL2 model (bundled name or path) instead of the supervised warm-up "
                  "(ours; a --net shared model may come from another window)");
  cmd->add_option("--critic-warmup", o.spec.knobs.critic_warmup,
                  "The first N RL updates train the critic only (policy learning rate 0, the code's "
                  "STEP_TRAIN_CRITIC_NET)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_flag("--no-replay", o.no_replay, "Ablation: train on the latest slot's steps instead of a replay memory");
  cmd->add_flag("--resume", o.spec.knobs.resume, "Continue from the output folder's checkpoint.json");
  cmd->add_option("--threads", o.spec.source.threads, "Threads for validation runs (0: all cores)")->check(at_least(0));
  cmd->callback([&o, &ctx, cmd] {
    o.spec.source.command = given_options(*cmd, "dmlkit cluster train dl2");
    o.spec.sl_option_given = cmd->count("--sl-steps") > 0 ? "--sl-steps" : cmd->count("--sl-lr") > 0 ? "--sl-lr" : "";
    ctx.run = [&o, &ctx] { return run_train_dl2(o, ctx); };
  });
}

}  // namespace dmlkit::app
