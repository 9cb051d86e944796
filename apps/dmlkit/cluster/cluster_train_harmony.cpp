// `dmlkit cluster train harmony --experiment NAME --out DIR`: trains Harmony (the reward-prediction
// model on samples of the baseline placers, then DRL on it; cluster/train/harmony_train.h) on the
// preset's generated traces, validates on separate traces in the simulator, and writes DIR:
// reward.json, checkpoint.json, best.json, last.json (models), results.json (baselines, initial,
// best and last policies' validation JCT; the reward model's hold-out error), training.csv,
// reward_model.csv (its hold-out curve) and report.html. `--resume` continues from DIR's
// checkpoint.json (written after the imitation and every --checkpoint-every updates) without
// collecting samples, fitting the reward model or imitating again. See docs/harmony-learning.md.
#include <filesystem>
#include <ostream>

#include "cluster/train/run.h"
#include "core/output_dir.h"
#include "core/results_table.h"
#include "dmlkit/cluster/cluster_train_common.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

namespace {

struct HarmonyTrainOptions : TrainCliOptions {
  cl::HarmonyTrainSpec spec;
};

int run_train_harmony(HarmonyTrainOptions& o, Context& ctx) {
  cl::HarmonyTrainSpec& spec = o.spec;
  spec.switches = o.switches();
  cl::check(spec);  // before the output folder is created
  const std::string dir = cl::train_dir(spec);
  // A resumed run keeps the models; its results/report files are rewritten.
  if (!spec.knobs.resume)
    prepare_incremental_output(
        dir,
        {"reward.json", "imitation.json", "checkpoint.json", "best.json", "last.json", "results.json", "records.csv",
         "summary.csv", "training.csv", "reward_model.csv", "report.html", "report.json"},
        false);
  HarmonyTrainBars bars("harmony", spec.knobs.rm_epochs, spec.knobs.rl_steps);
  const auto r = cl::run(spec, bars.progress());
  bars.finish();

  write_results_files(dir, r.results);
  write_in(dir, "training.csv", r.training_csv);
  write_in(dir, "reward_model.csv", r.reward_model_csv);
  write_in(dir, "report.html", r.report.render(default_chartjs_path()));
  write_in(dir, "report.json", r.report.to_json().dump() + "\n");

  const cl::HarmonyDrlConfig& c = r.config;
  print_harmony_summary(ctx, o.format, r.results,
                        "Harmony on " + c.experiment.name + " (" + c.experiment.interference +
                            "; validation: " + std::to_string(c.val_traces) + " traces)\n",
                        "rows", r.train, rounded_records_table(r.results));
  print_output_location(ctx, o.format, std::filesystem::absolute(r.dir).lexically_normal().string());
  return 0;
}

}  // namespace

void add_cluster_train_harmony_command(CLI::App& train, Context& ctx) {
  auto& o = ctx.make<HarmonyTrainOptions>();
  auto* cmd = train.add_subcommand(
      "harmony", "Harmony: reward model on the baselines' samples, then DRL placement on predicted rewards");
  add_train_experiment_options(*cmd, o.spec.source, o, "harmony-testbed");
  add_harmony_sampling_head(*cmd, o, o.spec.knobs);
  cmd->add_option("--jobs", o.spec.knobs.jobs, "Job slots N of the state (new + running)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--new-jobs", o.spec.knobs.new_jobs, "New-job slots N' (actions 2 M N')")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--neurons", o.spec.knobs.neurons, "Neurons per hidden layer (actor and critic)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--layers", o.spec.knobs.layers, "Hidden layers (actor and critic)")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  add_harmony_deep_dive_flags(*cmd, o);
  cmd->add_option(
         "--reward-model", o.spec.knobs.reward_model,
         "Reuse the reward model of an earlier run (its reward.json) instead of collecting samples and fitting one")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--resume", o.spec.knobs.resume,
                "Continue from --out's checkpoint.json (same experiment, interference and seed)");
  add_harmony_drl_options(*cmd, o.spec.knobs, "DRL updates (in total, with --resume)", "Weight of the entropy term");
  cmd->add_option("--rm-neurons", o.spec.knobs.rm_neurons, "Reward model: neurons per hidden layer")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--rm-layers", o.spec.knobs.rm_layers, "Reward model: hidden layers")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  add_harmony_rm_sampling_options(*cmd, o.spec.knobs);
  cmd->add_option("--rm-augment", o.spec.knobs.rm_augment, "Reward model: permuted copies per sample")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  add_harmony_rm_fit_options(*cmd, o.spec.knobs);
  add_harmony_imitation_options(*cmd, o.spec.knobs);
  cmd->add_flag(
      "--type-counts", o.spec.knobs.type_counts,
      "[A] add per-server counts of each job type's workers and PSs to the state and the reward model's input");
  cmd->add_flag("--defer", o.spec.knobs.defer,
                "[A] add N' actions 'new job n waits for the next interval' (not in the paper)");
  add_train_threads_option(*cmd, o.spec.source);
  cmd->callback([&o, &ctx, cmd] {
    o.spec.source.command = given_options(*cmd, "dmlkit cluster train harmony");
    ctx.run = [&o, &ctx] { return run_train_harmony(o, ctx); };
  });
}

}  // namespace dmlkit::app
