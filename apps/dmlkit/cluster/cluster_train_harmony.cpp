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

#include "cluster/train/harmony_train.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/results_table.h"
#include "core/table.h"
#include "dmlkit/cluster/cluster_train_harmony_common.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

namespace {

struct HarmonyTrainOptions : TrainCliOptions {
  cl::HarmonyTrainConfig c;
};

std::string path_of(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

int run_train_harmony(HarmonyTrainOptions& o, Context& ctx, const std::vector<std::string>& command) {
  cl::HarmonyTrainConfig c = o.c;
  apply_harmony_cli(o, command, "Harmony", c);
  cl::check_harmony_train_config(c);  // before the output folder is created
  const std::string dir = o.out.empty() ? "out/harmony-train-" + c.experiment.name : o.out;
  // A resumed run keeps the models; its results/report files are rewritten.
  if (!c.resume)
    prepare_incremental_output(dir,
                               {"reward.json", "imitation.json", "checkpoint.json", "best.json", "last.json", "results.json",
                                "records.csv", "summary.csv", "training.csv", "reward_model.csv", "report.html", "report.json"},
                               false);
  HarmonyTrainBars bars("harmony", c.rm_epochs, c.rl_steps);
  const cl::HarmonyTrainResult r = cl::train_harmony(c, dir, bars.progress());
  bars.finish();

  Results res("cluster train harmony", "model");
  put_harmony_drl_inputs(res, c);
  res.inputs()["jobs"] = c.jobs;
  res.inputs()["new_jobs"] = c.new_jobs;
  res.inputs()["neurons"] = c.neurons;
  res.inputs()["layers"] = c.layers;
  res.inputs()["reward_model"] = c.reward_model;
  res.inputs()["rm_neurons"] = c.rm_neurons;
  res.inputs()["rm_layers"] = c.rm_layers;
  res.inputs()["rm_augment"] = c.rm_augment;
  res.inputs()["type_counts"] = c.type_counts;
  res.inputs()["resume"] = c.resume;
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    add_validation_record(res, c.seed, name, jct, file, step);
  };
  for (const auto& [p, j] : r.baseline_val_jct_s) add(p, j, "", 0);
  add(c.resume ? "harmony-resumed" : "harmony-init", r.init_val_jct_s, "", r.start_step);
  if (!r.imitate_policy.empty()) add("harmony-imitation", r.il_val_jct_s, path_of(dir, "imitation.json"), 0);
  add("harmony-best", r.best_val_jct_s, r.best_model, r.best_step);
  add("harmony-last", r.last_val_jct_s, r.last_model, c.rl_steps);
  res.derived()["reward_model_samples"] = r.rm_samples;
  res.derived()["reward_model_rows"] = r.rm_rows;
  put_harmony_drl_derived(res, r);
  for (const auto& [p, v] : r.rm_err_by_policy) res.derived()["reward_model_mean_rel_err_on_" + p] = v;
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_harmony_tables(dir, res, r, true);

  HtmlReport page("Harmony training: " + c.experiment.name);
  page.add_facts({{"Experiment", c.experiment.name},
                  {"Interference", c.experiment.interference},
                  {"Networks", std::to_string(c.layers) + " x " + std::to_string(c.neurons) + " (critic " +
                                   (c.critic ? "on" : "off") + "), reward model " + std::to_string(c.rm_layers) +
                                   " x " + std::to_string(c.rm_neurons)},
                  {"Exploration / replay", std::string(c.exploration ? "on" : "off") + " / " + (c.replay ? "on" : "off")},
                  {"Reward model", std::to_string(r.rm_samples) + " samples (" + std::to_string(r.rm_rows) +
                                       " rows with permutations), hold-out mean relative error " +
                                       fixed(100 * r.rm_fit.holdout.mean_rel_err, 1) + " %"},
                  {"DRL", drl_summary_line(c.rl_steps, r)}});
  page.add_table(rounded_records_table(res), "Average JCT (s) on the validation traces (simulator, ground truth)");
  add_harmony_charts(page, r, "harmony", r.start_step);
  write_file_atomic(path("report.html"), page.render(default_chartjs_path()));
  write_file_atomic(path("report.json"), page.to_json().dump() + "\n");

  print_harmony_summary(ctx, o.format, res,
                        "Harmony on " + c.experiment.name + " (" + c.experiment.interference + "; validation: " +
                            std::to_string(c.val_traces) + " traces)\n",
                        "rows", r, rounded_records_table(res));
  print_output_location(ctx, o.format, std::filesystem::absolute(dir).lexically_normal().string());
  return 0;
}

}  // namespace

void add_cluster_train_harmony_command(CLI::App& train, Context& ctx) {
  auto& o = ctx.make<HarmonyTrainOptions>();
  auto& argv = ctx.make<std::vector<std::string>>();
  auto* cmd = train.add_subcommand(
      "harmony", "Harmony: reward model on the baselines' samples, then DRL placement on predicted rewards");
  add_train_experiment_options(*cmd, o, "harmony-testbed");
  add_harmony_sampling_head(*cmd, o, o.c);
  cmd->add_option("--jobs", o.c.jobs, "Job slots N of the state (new + running)")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--new-jobs", o.c.new_jobs, "New-job slots N' (actions 2 M N')")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--neurons", o.c.neurons, "Neurons per hidden layer (actor and critic)")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--layers", o.c.layers, "Hidden layers (actor and critic)")->check(CLI::Range(1, 16))->capture_default_str();
  add_harmony_deep_dive_flags(*cmd, o);
  cmd->add_option("--reward-model", o.c.reward_model,
                  "Reuse the reward model of an earlier run (its reward.json) instead of collecting samples and fitting one")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--resume", o.c.resume, "Continue from --out's checkpoint.json (same experiment, interference and seed)");
  add_harmony_drl_options(*cmd, o.c, "DRL updates (in total, with --resume)", "Weight of the entropy term");
  cmd->add_option("--rm-neurons", o.c.rm_neurons, "Reward model: neurons per hidden layer")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--rm-layers", o.c.rm_layers, "Reward model: hidden layers")->check(CLI::Range(1, 16))->capture_default_str();
  add_harmony_rm_sampling_options(*cmd, o.c);
  cmd->add_option("--rm-augment", o.c.rm_augment, "Reward model: permuted copies per sample")->check(CLI::Range(0, 100))->capture_default_str();
  add_harmony_rm_fit_options(*cmd, o.c);
  add_harmony_imitation_options(*cmd, o.c);
  cmd->add_flag("--type-counts", o.c.type_counts,
                "[A] add per-server counts of each job type's workers and PSs to the state and the reward model's input");
  cmd->add_flag("--defer", o.c.defer, "[A] add N' actions 'new job n waits for the next interval' (not in the paper)");
  add_train_threads_option(*cmd, o);
  cmd->callback([&o, &ctx, &argv, cmd] {
    argv = given_options(*cmd, "dmlkit cluster train harmony");
    ctx.run = [&o, &ctx, &argv] { return run_train_harmony(o, ctx, argv); };
  });
}

}  // namespace dmlkit::app
