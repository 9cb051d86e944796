// `dmlkit cluster train harmony-seq2seq --experiment NAME --out DIR`: trains Harmony's journal
// design (cluster/train/harmony_seq2seq_train.h: the seq2seq reward model on samples of the
// baseline placers, then DRL of the attention actor on it), validates on separate traces in the
// simulator, and writes DIR: reward.json, checkpoint.json, best.json, last.json (models),
// results.json (baselines, initial, best and last policies' validation JCT; the reward model's
// hold-out error), training.csv, reward_model.csv and report.html. `--resume` continues from DIR's
// checkpoint. See docs/harmony-seq2seq.md.
#include <cmath>
#include <filesystem>
#include <ostream>

#include "cluster/train/harmony_seq2seq_train.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "core/progress.h"
#include "core/results.h"
#include "core/table.h"
#include "dmlkit/commands.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

namespace {

struct S2sTrainOptions {
  std::string experiment;
  std::string experiments_dir = cl::default_experiments_dir();
  std::string data_dir = default_data_dir();
  std::string out, format = "table";
  std::string interference;
  bool no_critic = false, no_exploration = false, no_replay = false, raw_advantages = false;
  int threads = 0;
  cl::S2sTrainConfig c;
};

int run_train_s2s(S2sTrainOptions& o, Context& ctx, const std::vector<std::string>& command) {
  cl::S2sTrainConfig c = o.c;
  c.experiment = cl::load_experiment(o.experiment, o.experiments_dir);
  if (c.experiment.engine != "sim")
    throw Error(c.experiment.path, 0, "engine", "an OASiS-model preset cannot train harmony-seq2seq (docs/oasis.md)");
  if (!o.interference.empty()) c.experiment.interference = o.interference;
  c.data_dir = o.data_dir;
  c.command = command;
  c.critic = !o.no_critic;
  c.exploration = !o.no_exploration;
  c.replay = !o.no_replay;
  c.standardize = !o.raw_advantages;
  c.threads = resolve_threads(o.threads);
  cl::check_s2s_train_config(c);  // before the output folder is created
  const std::string dir = o.out.empty() ? "out/harmony-seq2seq-train-" + c.experiment.name : o.out;
  // A resumed run keeps the models; its results/report files are rewritten.
  if (!c.resume)
    prepare_incremental_output(dir,
                               {"reward.json", "checkpoint.json", "best.json", "last.json", "results.json",
                                "records.csv", "summary.csv", "training.csv", "reward_model.csv", "report.html"},
                               false);
  ProgressBar samples_bar("seq2seq samples", 0);
  ProgressBar rm_bar("seq2seq reward model", static_cast<double>(c.rm_epochs));
  ProgressBar rl_bar("seq2seq DRL", static_cast<double>(c.rl_steps));
  const cl::S2sTrainResult r =
      cl::train_harmony_seq2seq(c, dir, [&](const std::string& phase, long step, long, const std::string& d) {
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

  Results res("cluster train harmony-seq2seq", "model");
  auto& in = res.inputs();
  in["experiment"] = c.experiment.name;
  in["interference"] = c.experiment.interference;
  in["seed"] = c.seed;
  in["embed"] = c.embed;
  in["heads"] = c.heads;
  in["max_jobs"] = c.max_jobs;
  in["critic"] = c.critic;
  in["exploration"] = c.exploration;
  in["replay"] = c.replay;
  in["rl_steps"] = c.rl_steps;
  in["batch"] = c.batch;
  in["memory"] = c.memory;
  in["lr"] = c.lr;
  in["entropy_weight"] = c.entropy_weight;
  in["gamma"] = c.gamma;
  in["standardize_advantages"] = c.standardize;
  in["epsilon_start"] = c.epsilon_start;
  in["epsilon_end"] = c.epsilon_end;
  in["epsilon_steps"] = c.epsilon_steps;
  in["train_traces"] = c.train_traces;
  in["val_traces"] = c.val_traces;
  in["rm_embed"] = c.rm_embed;
  in["rm_heads"] = c.rm_heads;
  in["rm_traces"] = c.rm_traces;
  in["rm_random"] = c.rm_random;
  in["rm_epochs"] = c.rm_epochs;
  in["rm_holdout"] = c.rm_holdout;
  in["resume"] = c.resume;
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    ResultRecord& rec = res.add(name, c.seed);
    rec.metrics["val_avg_jct_s"] = jct;
    rec.metrics["step"] = step;
    if (!file.empty()) rec.files["model"] = std::filesystem::path(file).filename().string();
  };
  for (const auto& [p, j] : r.baseline_val_jct_s) add(p, j, "", 0);
  add(c.resume ? "harmony-seq2seq-resumed" : "harmony-seq2seq-init", r.init_val_jct_s, "", r.start_step);
  add("harmony-seq2seq-best", r.best_val_jct_s, r.best_model, r.best_step);
  add("harmony-seq2seq-last", r.last_val_jct_s, r.last_model, c.rl_steps);
  res.derived()["reward_model_samples"] = r.rm_samples;
  res.derived()["reward_model_holdout_rows"] = r.rm_fit.holdout_rows.size();
  res.derived()["reward_model_holdout_mse"] = r.rm_fit.holdout.mse;
  res.derived()["reward_model_holdout_mae"] = r.rm_fit.holdout.mae;
  res.derived()["reward_model_holdout_mean_rel_err"] = r.rm_fit.holdout.mean_rel_err;
  res.derived()["reward_model_train_mean_rel_err"] = r.rm_fit.train.mean_rel_err;
  res.derived()["intervals_simulated"] = r.intervals;
  res.derived()["episodes"] = r.episodes;
  res.derived()["explored_fraction"] = r.explored_fraction;
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_file_atomic(path("results.json"), res.json_text());
  write_file_atomic(path("records.csv"), res.records_table().to_csv());
  write_file_atomic(path("summary.csv"), res.summary_table().to_csv());
  TextTable curve({"step", "policy_loss", "value_loss", "entropy", "epsilon", "val_avg_jct_s"});
  for (const auto& p : r.curve)
    curve.add_row({std::to_string(p.step), fixed(p.policy_loss, 5), fixed(p.value_loss, 6), fixed(p.entropy, 5),
                   fixed(p.epsilon, 3), p.val_avg_jct_s >= 0 ? fixed(p.val_avg_jct_s, 1) : ""});
  write_file_atomic(path("training.csv"), curve.to_csv());
  TextTable rmc({"epoch", "holdout_mse"});
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i)
    rmc.add_row({std::to_string(i + 1), fixed(r.rm_fit.holdout_mse_curve[i], 6)});
  write_file_atomic(path("reward_model.csv"), rmc.to_csv());

  HtmlReport page("harmony-seq2seq training: " + c.experiment.name);
  page.add_facts({{"Experiment", c.experiment.name},
                  {"Interference", c.experiment.interference},
                  {"Networks", "attention encoder E = " + std::to_string(c.embed) + ", " + std::to_string(c.heads) +
                                   " heads, pointer decoder (critic " + (c.critic ? "on" : "off") +
                                   "); reward model E = " + std::to_string(c.rm_embed)},
                  {"Exploration / replay", std::string(c.exploration ? "on" : "off") + " / " + (c.replay ? "on" : "off")},
                  {"Reward model", std::to_string(r.rm_samples) + " samples, hold-out mean relative error " +
                                       fixed(100 * r.rm_fit.holdout.mean_rel_err, 1) + " %"},
                  {"DRL", std::to_string(c.rl_steps) + " updates over " + std::to_string(r.intervals) +
                              " intervals of " + std::to_string(r.episodes) + " episodes"}});
  page.add_table(res.records_table(), "Average JCT (s) on the validation traces (simulator, ground truth)");
  LineChart rm{"Reward model: hold-out MSE", "epoch", "MSE (speed / type scale)^2", {}, {}, {}, {}, {}, false};
  ChartSeries rs{"hold-out", {}, {}, false};
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i) {
    rs.x.push_back(static_cast<double>(i + 1));
    rs.y.push_back(r.rm_fit.holdout_mse_curve[i]);
  }
  rm.series.push_back(rs);
  page.add_chart(rm);
  LineChart val{"Validation average JCT", "DRL update", "average JCT (s)", {}, {}, {}, {}, {}, false};
  ChartSeries v{"harmony-seq2seq", {static_cast<double>(r.start_step)}, {r.init_val_jct_s}, false};
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

  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << res.records_table().to_csv();
  } else {
    ctx.out << "harmony-seq2seq on " << c.experiment.name << " (" << c.experiment.interference << "; validation: "
            << c.val_traces << " traces)\n"
            << "reward model: hold-out mean relative error " << fixed(100 * r.rm_fit.holdout.mean_rel_err, 1)
            << " % over " << r.rm_fit.holdout_rows.size() << " samples\n"
            << "wall time: samples + reward model " << fixed(r.rm_seconds, 1) << " s, DRL " << fixed(r.rl_seconds, 1)
            << " s\n\n"
            << res.records_table().render();
  }
  print_output_location(ctx, o.format, std::filesystem::absolute(dir).lexically_normal().string());
  return 0;
}

}  // namespace

void add_cluster_train_harmony_seq2seq_command(CLI::App& train, Context& ctx) {
  auto& o = ctx.make<S2sTrainOptions>();
  auto& argv = ctx.make<std::vector<std::string>>();
  auto* cmd = train.add_subcommand("harmony-seq2seq",
                                   "Harmony's journal design: seq2seq reward model on the baselines' samples, then DRL "
                                   "of the attention actor with a pointer decoder on predicted rewards");
  cmd->add_option("--experiment", o.experiment, "Experiment preset (name or file), e.g. harmony-testbed")->required();
  cmd->add_option("--experiments-dir", o.experiments_dir, "Folder of experiment presets")->capture_default_str();
  cmd->add_option("--data-dir", o.data_dir, "Folder of the bundled data")->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->add_option("--interference", o.interference, "Ground truth of the training samples (default: the preset's)")
      ->check(CLI::IsMember({"none", "contention", "gavel"}));
  cmd->add_option("--seed", o.c.seed, "Seed of the networks, the sampling and the exploration")->capture_default_str();
  cmd->add_option("--embed", o.c.embed, "Attention width E (actor and critic)")->check(CLI::Range(1, 1024))->capture_default_str();
  cmd->add_option("--heads", o.c.heads, "Attention heads (divide --embed)")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--max-jobs", o.c.max_jobs, "Job tokens in a training row (older running jobs beyond are left out)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  cmd->add_flag("--no-critic", o.no_critic, "Deep-dive: no value network (baseline = the batch's mean target)");
  cmd->add_flag("--no-exploration", o.no_exploration, "Deep-dive: no epsilon-greedy heuristic exploration");
  cmd->add_flag("--no-replay", o.no_replay, "Deep-dive: each update uses the latest interval's steps only");
  cmd->add_flag("--raw-advantages", o.raw_advantages, "Do not divide each batch's advantages by their standard deviation");
  cmd->add_flag("--resume", o.c.resume, "Continue from --out's checkpoint.json (same experiment, interference and seed)");
  cmd->add_option("--rl-steps", o.c.rl_steps, "DRL updates (in total, with --resume)")->check(at_least(0))->capture_default_str();
  cmd->add_option("--batch", o.c.batch, "Steps per update")->check(CLI::Range(1, 65536))->capture_default_str();
  cmd->add_option("--memory", o.c.memory, "FIFO replay capacity (steps)")->check(CLI::Range(1, 10000000))->capture_default_str();
  cmd->add_option("--lr", o.c.lr, "Adam learning rate (actor and critic)")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd->add_option("--entropy-weight", o.c.entropy_weight, "Weight of the entropy term (mean over steps of sum over servers)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
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
  cmd->add_option("--rm-embed", o.c.rm_embed, "Reward model: attention width")->check(CLI::Range(1, 1024))->capture_default_str();
  cmd->add_option("--rm-heads", o.c.rm_heads, "Reward model: attention heads")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--rm-traces", o.c.rm_traces, "Reward model: traces per collecting placer")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--rm-random", o.c.rm_random, "Reward model: random-placement runs, as a share of the baselines' runs")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--rm-epochs", o.c.rm_epochs, "Reward model: training epochs")->check(at_least(0))->capture_default_str();
  cmd->add_option("--rm-holdout", o.c.rm_holdout, "Reward model: share of samples held out")->check(CLI::Range(0.0, 0.95))->capture_default_str();
  cmd->add_option("--rm-lr", o.c.rm_lr, "Reward model: Adam learning rate")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd->add_option("--rm-policies", o.c.rm_policies, "Reward model: placers whose runs give the samples")->delimiter(',')->capture_default_str();
  cmd->add_option("--threads", o.threads, "Threads for sample collection and validation (0: all cores)")->check(at_least(0));
  cmd->callback([&o, &ctx, &argv, cmd] {
    argv = given_options(*cmd, "dmlkit cluster train harmony-seq2seq");
    ctx.run = [&o, &ctx, &argv] { return run_train_s2s(o, ctx, argv); };
  });
}

}  // namespace dmlkit::app
