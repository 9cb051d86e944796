// `dmlkit cluster train harmony --experiment NAME --out DIR`: trains Harmony (the reward-prediction
// model on samples of the baseline placers, then DRL on it; cluster/train/harmony_train.h) on the
// preset's generated traces, validates on separate traces in the simulator, and writes DIR:
// reward.json, checkpoint.json, best.json, last.json (models), results.json (baselines, initial,
// best and last policies' validation JCT; the reward model's hold-out error), training.csv,
// reward_model.csv (its hold-out curve) and report.html. See docs/harmony-learning.md.
#include <cmath>
#include <filesystem>
#include <ostream>

#include "cluster/train/harmony_train.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/results_table.h"
#include "core/table.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

namespace {

struct HarmonyTrainOptions {
  std::string experiment;
  std::string experiments_dir = cl::default_experiments_dir();
  std::string data_dir = default_data_dir();
  std::string out, format = "table";
  std::string interference;
  bool no_critic = false, no_exploration = false, no_replay = false, raw_advantages = false;
  int threads = 0;
  cl::HarmonyTrainConfig c;
};

std::string path_of(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

int run_train_harmony(HarmonyTrainOptions& o, Context& ctx, const std::vector<std::string>& command) {
  cl::HarmonyTrainConfig c = o.c;
  c.experiment = cl::load_experiment(o.experiment, o.experiments_dir);
  if (c.experiment.engine != "sim")
    throw Error(c.experiment.path, 0, "engine", "an OASiS-model preset cannot train Harmony (docs/oasis.md)");
  if (!o.interference.empty()) c.experiment.interference = o.interference;
  c.data_dir = o.data_dir;
  c.command = command;
  c.critic = !o.no_critic;
  c.exploration = !o.no_exploration;
  c.replay = !o.no_replay;
  c.standardize = !o.raw_advantages;
  c.threads = resolve_threads(o.threads);
  cl::check_harmony_train_config(c);  // before the output folder is created
  const std::string dir = o.out.empty() ? "out/harmony-train-" + c.experiment.name : o.out;
  prepare_incremental_output(dir,
                             {"reward.json", "imitation.json", "checkpoint.json", "best.json", "last.json", "results.json", "records.csv",
                              "summary.csv", "training.csv", "reward_model.csv", "report.html", "report.json"},
                             false);
  ProgressBar samples_bar("harmony samples", 0);
  ProgressBar rm_bar("harmony reward model", static_cast<double>(c.rm_epochs));
  ProgressBar rl_bar("harmony DRL", static_cast<double>(c.rl_steps));
  const cl::HarmonyTrainResult r =
      cl::train_harmony(c, dir, [&](const std::string& phase, long step, long, const std::string& d) {
        if (phase == "samples") {
          samples_bar.update(static_cast<double>(step), d);
        } else if (phase == "reward model") {
          samples_bar.finish();
          rm_bar.update(static_cast<double>(step), d);
        } else {
          rm_bar.finish();
          rl_bar.update(static_cast<double>(step), d);
        }
      });
  samples_bar.finish();
  rm_bar.finish();
  rl_bar.finish();

  Results res("cluster train harmony", "model");
  res.inputs()["experiment"] = c.experiment.name;
  res.inputs()["interference"] = c.experiment.interference;
  res.inputs()["seed"] = c.seed;
  res.inputs()["jobs"] = c.jobs;
  res.inputs()["new_jobs"] = c.new_jobs;
  res.inputs()["neurons"] = c.neurons;
  res.inputs()["layers"] = c.layers;
  res.inputs()["critic"] = c.critic;
  res.inputs()["exploration"] = c.exploration;
  res.inputs()["replay"] = c.replay;
  res.inputs()["rl_steps"] = c.rl_steps;
  res.inputs()["batch"] = c.batch;
  res.inputs()["memory"] = c.memory;
  res.inputs()["lr"] = c.lr;
  res.inputs()["entropy_weight"] = c.entropy_weight;
  res.inputs()["gamma"] = c.gamma;
  res.inputs()["standardize_advantages"] = c.standardize;
  res.inputs()["reward_model"] = c.reward_model;
  res.inputs()["epsilon_start"] = c.epsilon_start;
  res.inputs()["epsilon_end"] = c.epsilon_end;
  res.inputs()["epsilon_steps"] = c.epsilon_steps;
  res.inputs()["train_traces"] = c.train_traces;
  res.inputs()["val_traces"] = c.val_traces;
  res.inputs()["rm_neurons"] = c.rm_neurons;
  res.inputs()["rm_layers"] = c.rm_layers;
  res.inputs()["rm_traces"] = c.rm_traces;
  res.inputs()["rm_random"] = c.rm_random;
  res.inputs()["rm_augment"] = c.rm_augment;
  res.inputs()["rm_epochs"] = c.rm_epochs;
  res.inputs()["rm_holdout"] = c.rm_holdout;
  res.inputs()["imitate"] = c.imitate;
  res.inputs()["il_steps"] = c.il_steps;
  res.inputs()["il_lr"] = c.il_lr;
  res.inputs()["il_traces"] = c.il_traces;
  res.inputs()["critic_warmup"] = c.critic_warmup;
  res.inputs()["defer"] = c.defer;
  res.inputs()["type_counts"] = c.type_counts;
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    ResultRecord& rec = res.add(name, c.seed);
    rec.metrics["val_avg_jct_s"] = jct;
    rec.metrics["step"] = step;
    if (!file.empty()) rec.files["model"] = std::filesystem::path(file).filename().string();
  };
  for (const auto& [p, j] : r.baseline_val_jct_s) add(p, j, "", 0);
  add("harmony-init", r.init_val_jct_s, "", 0);
  if (!r.imitate_policy.empty()) add("harmony-imitation", r.il_val_jct_s, path_of(dir, "imitation.json"), 0);
  add("harmony-best", r.best_val_jct_s, r.best_model, r.best_step);
  add("harmony-last", r.last_val_jct_s, r.last_model, c.rl_steps);
  res.derived()["reward_model_samples"] = r.rm_samples;
  res.derived()["reward_model_rows"] = r.rm_rows;
  res.derived()["reward_model_holdout_rows"] = r.rm_fit.holdout_rows.size();
  res.derived()["reward_model_holdout_mse"] = r.rm_fit.holdout.mse;
  res.derived()["reward_model_holdout_mae"] = r.rm_fit.holdout.mae;
  res.derived()["reward_model_holdout_mean_rel_err"] = r.rm_fit.holdout.mean_rel_err;
  res.derived()["reward_model_train_mean_rel_err"] = r.rm_fit.train.mean_rel_err;
  res.derived()["intervals_simulated"] = r.intervals;
  res.derived()["episodes"] = r.episodes;
  res.derived()["explored_fraction"] = r.explored_fraction;
  for (const auto& [p, v] : r.rm_err_by_policy) res.derived()["reward_model_mean_rel_err_on_" + p] = v;
  if (!r.imitate_policy.empty()) {
    res.derived()["imitation_teacher"] = r.imitate_policy;
    res.derived()["imitation_samples"] = r.il_samples;
    res.derived()["imitation_accuracy"] = r.il_accuracy;
  }
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_file_atomic(path("results.json"), res.json_text());
  write_file_atomic(path("records.csv"), res.records_table().to_csv());
  write_file_atomic(path("summary.csv"), res.summary_table().to_csv());
  TextTable curve({"step", "policy_loss", "value_loss", "entropy", "epsilon", "val_avg_jct_s", "model_avg_jct_s"});
  for (const auto& p : r.curve)
    curve.add_row({std::to_string(p.step), fixed(p.policy_loss, 5), fixed(p.value_loss, 6), fixed(p.entropy, 5),
                   fixed(p.epsilon, 3), p.val_avg_jct_s >= 0 ? fixed(p.val_avg_jct_s, 1) : "",
                   p.model_avg_jct_s >= 0 ? fixed(p.model_avg_jct_s, 1) : ""});
  write_file_atomic(path("training.csv"), curve.to_csv());
  TextTable rmc({"epoch", "holdout_mse"});
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i)
    rmc.add_row({std::to_string(i + 1), fixed(r.rm_fit.holdout_mse_curve[i], 6)});
  write_file_atomic(path("reward_model.csv"), rmc.to_csv());

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
                  {"DRL", std::to_string(c.rl_steps) + " updates over " + std::to_string(r.intervals) +
                              " intervals of " + std::to_string(r.episodes) + " episodes"}});
  page.add_table(rounded_records_table(res), "Average JCT (s) on the validation traces (simulator, ground truth)");
  LineChart rm{"Reward model: hold-out MSE", "epoch", "MSE (speed / type scale)^2", {}, {}, {}, {}, {}, false};
  ChartSeries rs{"hold-out", {}, {}, false};
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i) {
    rs.x.push_back(static_cast<double>(i + 1));
    rs.y.push_back(r.rm_fit.holdout_mse_curve[i]);
  }
  rm.series.push_back(rs);
  page.add_chart(rm);
  LineChart val{"Validation average JCT", "DRL update", "average JCT (s)", {}, {}, {}, {}, {}, false};
  ChartSeries v{"harmony", {0}, {r.init_val_jct_s}, false};
  for (const auto& p : r.curve)
    if (p.val_avg_jct_s >= 0) {
      v.x.push_back(static_cast<double>(p.step));
      v.y.push_back(p.val_avg_jct_s);
    }
  val.series.push_back(v);
  const double x_end = v.x.back() > 0 ? v.x.back() : 1.0;
  for (const auto& [name, j] : r.baseline_val_jct_s) val.series.push_back({name, {0, x_end}, {j, j}, false});
  page.add_chart(val);
  LineChart loss{"DRL losses", "DRL update", "loss", {}, {}, {}, {}, {}, false};
  ChartSeries pl{"actor", {}, {}, false}, vl{"critic", {}, {}, false};
  for (const auto& p : r.curve) {
    pl.x.push_back(static_cast<double>(p.step));
    pl.y.push_back(p.policy_loss);
    vl.x.push_back(static_cast<double>(p.step));
    vl.y.push_back(p.value_loss);
  }
  loss.series = {pl, vl};
  page.add_chart(loss);
  write_file_atomic(path("report.html"), page.render(default_chartjs_path()));
  write_file_atomic(path("report.json"), page.to_json().dump() + "\n");

  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << res.records_table().to_csv();
  } else {
    ctx.out << "Harmony on " << c.experiment.name << " (" << c.experiment.interference << "; validation: "
            << c.val_traces << " traces)\n"
            << "reward model: hold-out mean relative error " << fixed(100 * r.rm_fit.holdout.mean_rel_err, 1)
            << " % over " << r.rm_fit.holdout_rows.size() << " rows\n"
            << "wall time: samples + reward model " << fixed(r.rm_seconds, 1) << " s, DRL " << fixed(r.rl_seconds, 1)
            << " s\n\n"
            << rounded_records_table(res).render();
  }
  print_output_location(ctx, o.format, std::filesystem::absolute(dir).lexically_normal().string());
  return 0;
}

}  // namespace

void add_cluster_train_harmony_command(CLI::App& train, Context& ctx) {
  auto& o = ctx.make<HarmonyTrainOptions>();
  auto& argv = ctx.make<std::vector<std::string>>();
  auto* cmd = train.add_subcommand(
      "harmony", "Harmony: reward model on the baselines' samples, then DRL placement on predicted rewards");
  cmd->add_option("--experiment", o.experiment, "Experiment preset (name or file), e.g. harmony-testbed")->required();
  cmd->add_option("--experiments-dir", o.experiments_dir,
                  std::string("Folder of experiment presets (") + kExperimentsDirDefault + ")");
  cmd->add_option("--data-dir", o.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  add_output_options(*cmd, o.out, o.format);
  cmd->add_option("--interference", o.interference, "Ground truth of the training samples (default: the preset's)")
      ->check(CLI::IsMember({"none", "contention", "gavel"}));
  cmd->add_option("--seed", o.c.seed, "Seed of the networks, the sampling and the exploration")->capture_default_str();
  cmd->add_option("--jobs", o.c.jobs, "Job slots N of the state (new + running)")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--new-jobs", o.c.new_jobs, "New-job slots N' (actions 2 M N')")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--neurons", o.c.neurons, "Neurons per hidden layer (actor and critic)")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--layers", o.c.layers, "Hidden layers (actor and critic)")->check(CLI::Range(1, 16))->capture_default_str();
  cmd->add_flag("--no-critic", o.no_critic, "Deep-dive: no value network (baseline = the batch's mean target)");
  cmd->add_flag("--no-exploration", o.no_exploration, "Deep-dive: no epsilon-greedy heuristic exploration");
  cmd->add_flag("--no-replay", o.no_replay, "Deep-dive: each update uses the latest interval's steps only");
  cmd->add_flag("--raw-advantages", o.raw_advantages, "Do not divide each batch's advantages by their standard deviation");
  cmd->add_option("--reward-model", o.c.reward_model,
                  "Reuse the reward model of an earlier run (its reward.json) instead of collecting samples and fitting one")
      ->check(CLI::ExistingFile);
  cmd->add_option("--rl-steps", o.c.rl_steps, "DRL updates")->check(at_least(0))->capture_default_str();
  cmd->add_option("--batch", o.c.batch, "Steps per update")->check(CLI::Range(1, 65536))->capture_default_str();
  cmd->add_option("--memory", o.c.memory, "FIFO replay capacity (steps)")->check(CLI::Range(1, 10000000))->capture_default_str();
  cmd->add_option("--lr", o.c.lr, "Adam learning rate (actor and critic)")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd->add_option("--entropy-weight", o.c.entropy_weight, "Weight of the entropy term")->check(CLI::Range(0.0, 100.0))->capture_default_str();
  cmd->add_option("--gamma", o.c.gamma, "Discount over intervals (0: each step's target is its interval's reward)")
      ->check(CLI::Range(0.0, 0.9999))
      ->capture_default_str();
  cmd->add_option("--epsilon-start", o.c.epsilon_start, "Exploration probability at the start")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--epsilon-end", o.c.epsilon_end, "... after --epsilon-steps updates")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--epsilon-steps", o.c.epsilon_steps, "Updates over which epsilon decays linearly")->check(at_least(0))->capture_default_str();
  cmd->add_option("--train-traces", o.c.train_traces, "DRL training traces (seeds 1000000 + k)")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--val-traces", o.c.val_traces, "Validation traces (seeds 2000000 + k)")->check(CLI::Range(1, 10000))->capture_default_str();
  cmd->add_option("--val-every", o.c.val_every, "Validate every N updates")->check(at_least(1))->capture_default_str();
  cmd->add_option("--checkpoint-every", o.c.checkpoint_every, "Checkpoint every N updates")->check(at_least(1))->capture_default_str();
  cmd->add_option("--rm-neurons", o.c.rm_neurons, "Reward model: neurons per hidden layer")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--rm-layers", o.c.rm_layers, "Reward model: hidden layers")->check(CLI::Range(1, 16))->capture_default_str();
  cmd->add_option("--rm-traces", o.c.rm_traces, "Reward model: traces per collecting placer")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--rm-random", o.c.rm_random, "Reward model: random-placement runs, as a share of the baselines' runs")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--rm-augment", o.c.rm_augment, "Reward model: permuted copies per sample")->check(CLI::Range(0, 100))->capture_default_str();
  cmd->add_option("--rm-epochs", o.c.rm_epochs, "Reward model: training epochs")->check(at_least(0))->capture_default_str();
  cmd->add_option("--rm-holdout", o.c.rm_holdout, "Reward model: share of samples held out")->check(CLI::Range(0.0, 0.95))->capture_default_str();
  cmd->add_option("--rm-lr", o.c.rm_lr, "Reward model: Adam learning rate")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd->add_option("--rm-policies", o.c.rm_policies, "Reward model: placers whose runs give the samples")->delimiter(',')->capture_default_str();
  cmd->add_option("--imitate", o.c.imitate,
                  "[A] warm-start the actor by imitating a placer before DRL: none, auto (the baseline best on the "
                  "validation traces) or a policy name")
      ->capture_default_str();
  cmd->add_option("--il-steps", o.c.il_steps, "Imitation: supervised updates (batches of --batch steps)")->check(at_least(0))->capture_default_str();
  cmd->add_option("--il-lr", o.c.il_lr, "Imitation: Adam learning rate")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd->add_option("--il-traces", o.c.il_traces, "Imitation: teacher traces (training seeds; 0: --train-traces)")->check(at_least(0))->capture_default_str();
  cmd->add_option("--critic-warmup", o.c.critic_warmup, "[A] first DRL updates train the critic only")->check(at_least(0))->capture_default_str();
  cmd->add_flag("--type-counts", o.c.type_counts,
                "[A] add per-server counts of each job type's workers and PSs to the state and the reward model's input");
  cmd->add_flag("--defer", o.c.defer, "[A] add N' actions 'new job n waits for the next interval' (not in the paper)");
  cmd->add_option("--threads", o.threads, "Threads for sample collection and validation (0: all cores)")->check(at_least(0));
  cmd->callback([&o, &ctx, &argv, cmd] {
    argv = given_options(*cmd, "dmlkit cluster train harmony");
    ctx.run = [&o, &ctx, &argv] { return run_train_harmony(o, ctx, argv); };
  });
}

}  // namespace dmlkit::app
