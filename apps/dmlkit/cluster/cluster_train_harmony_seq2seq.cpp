// `dmlkit cluster train harmony-seq2seq --experiment NAME --out DIR`: trains Harmony's journal
// design (cluster/train/harmony_seq2seq_train.h: the seq2seq reward model on samples of the
// baseline placers, then DRL of the attention actor on it), validates on separate traces in the
// simulator, and writes DIR: reward.json, checkpoint.json, best.json, last.json (models; with
// --imitate also imitation.json), results.json (baselines, initial, [imitation,] best and last
// policies' validation JCT; the reward model's hold-out error; the imitation's teacher, samples and
// accuracy), training.csv, reward_model.csv and report.html. `--resume` continues from DIR's
// checkpoint. See docs/harmony-seq2seq.md.
#include <filesystem>
#include <ostream>

#include "cluster/train/harmony_seq2seq_train.h"
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

struct S2sTrainOptions : TrainCliOptions {
  cl::S2sTrainConfig c;
};

int run_train_s2s(S2sTrainOptions& o, Context& ctx, const std::vector<std::string>& command) {
  cl::S2sTrainConfig c = o.c;
  apply_harmony_cli(o, command, "harmony-seq2seq", c);
  cl::check_s2s_train_config(c);  // before the output folder is created
  const std::string dir = o.out.empty() ? "out/harmony-seq2seq-train-" + c.experiment.name : o.out;
  // A resumed run keeps the models; its results/report files are rewritten.
  if (!c.resume)
    prepare_incremental_output(dir,
                               {"reward.json", "checkpoint.json", "best.json", "last.json", "results.json",
                                "records.csv", "summary.csv", "training.csv", "reward_model.csv", "report.html",
                                "imitation.json"},
                               false);
  HarmonyTrainBars bars("seq2seq", c.rm_epochs, c.rl_steps);
  const cl::S2sTrainResult r = cl::train_harmony_seq2seq(c, dir, bars.progress());
  bars.finish();

  Results res("cluster train harmony-seq2seq", "model");
  put_harmony_drl_inputs(res, c);
  auto& in = res.inputs();
  in["embed"] = c.embed;
  in["heads"] = c.heads;
  in["max_jobs"] = c.max_jobs;
  in["rm_embed"] = c.rm_embed;
  in["rm_heads"] = c.rm_heads;
  in["resume"] = c.resume;
  in["job_exploration"] = c.job_exploration;
  in["rollout"] = c.rollout;
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    add_validation_record(res, c.seed, name, jct, file, step);
  };
  for (const auto& [p, j] : r.baseline_val_jct_s) add(p, j, "", 0);
  add(c.resume ? "harmony-seq2seq-resumed" : "harmony-seq2seq-init", r.init_val_jct_s, "", r.start_step);
  if (!r.imitate_policy.empty())
    add("harmony-seq2seq-imitation", r.il_val_jct_s, (std::filesystem::path(dir) / "imitation.json").string(), 0);
  add("harmony-seq2seq-best", r.best_val_jct_s, r.best_model, r.best_step);
  add("harmony-seq2seq-last", r.last_val_jct_s, r.last_model, c.rl_steps);
  res.derived()["reward_model_samples"] = r.rm_samples;
  put_harmony_drl_derived(res, r);
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_harmony_tables(dir, res, r, true);

  HtmlReport page("harmony-seq2seq training: " + c.experiment.name);
  page.add_facts({{"Experiment", c.experiment.name},
                  {"Interference", c.experiment.interference},
                  {"Networks", "attention encoder E = " + std::to_string(c.embed) + ", " + std::to_string(c.heads) +
                                   " heads, pointer decoder (critic " + (c.critic ? "on" : "off") +
                                   "); reward model E = " + std::to_string(c.rm_embed)},
                  {"Exploration / replay", std::string(c.exploration ? "on" : "off") + " / " + (c.replay ? "on" : "off")},
                  {"Reward model", std::to_string(r.rm_samples) + " samples, hold-out mean relative error " +
                                       fixed(100 * r.rm_fit.holdout.mean_rel_err, 1) + " %"},
                  {"DRL", drl_summary_line(c.rl_steps, r)}});
  page.add_table(rounded_records_table(res), "Average JCT (s) on the validation traces (simulator, ground truth)");
  add_harmony_charts(page, r, "harmony-seq2seq", r.start_step);
  write_file_atomic(path("report.html"), page.render(default_chartjs_path()));

  print_harmony_summary(ctx, o.format, res,
                        "harmony-seq2seq on " + c.experiment.name + " (" + c.experiment.interference +
                            "; validation: " + std::to_string(c.val_traces) + " traces)\n",
                        "samples", r, rounded_records_table(res));
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
  add_train_experiment_options(*cmd, o, "harmony-testbed");
  add_harmony_sampling_head(*cmd, o, o.c);
  cmd->add_option("--embed", o.c.embed, "Attention width E (actor and critic)")->check(CLI::Range(1, 1024))->capture_default_str();
  cmd->add_option("--heads", o.c.heads, "Attention heads (divide --embed)")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->add_option("--max-jobs", o.c.max_jobs, "Job tokens in a training row (older running jobs beyond are left out)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  add_harmony_deep_dive_flags(*cmd, o);
  cmd->add_flag("--resume", o.c.resume, "Continue from --out's checkpoint.json (same experiment, interference and seed)");
  add_harmony_drl_options(*cmd, o.c, "DRL updates (in total, with --resume)",
                          "Weight of the entropy term (mean over steps of sum over servers)");
  cmd->add_option("--rm-embed", o.c.rm_embed, "Reward model: attention width")->check(CLI::Range(1, 1024))->capture_default_str();
  cmd->add_option("--rm-heads", o.c.rm_heads, "Reward model: attention heads")->check(CLI::Range(1, 64))->capture_default_str();
  add_harmony_rm_sampling_options(*cmd, o.c);
  add_harmony_rm_fit_options(*cmd, o.c);
  add_harmony_imitation_options(*cmd, o.c);
  cmd->add_flag("--defer", o.c.defer,
                "[A] one more pointer target 'this job waits for the next interval' (a learned key; not in the paper)");
  cmd->add_option("--job-exploration", o.c.job_exploration,
                  "[A] explore by whole jobs: with probability epsilon per new job, all its tasks on one server "
                  "drawn among those with room for it (occupied: holding another job's task; any), instead of "
                  "the per-task bin-packing/load-balancing step; off: the per-task one")
      ->check(CLI::IsMember({"off", "occupied", "any"}))
      ->capture_default_str();
  cmd->add_option("--rollout", o.c.rollout,
                  "Where DRL episodes run: reward-model (the paper's premise) or simulator ([A] a departure: the "
                  "real simulator's ground truth; needs --reward jct and --gamma > 0)")
      ->check(CLI::IsMember({"reward-model", "simulator"}))
      ->capture_default_str();
  add_train_threads_option(*cmd, o);
  cmd->callback([&o, &ctx, &argv, cmd] {
    argv = given_options(*cmd, "dmlkit cluster train harmony-seq2seq");
    ctx.run = [&o, &ctx, &argv] { return run_train_s2s(o, ctx, argv); };
  });
}

}  // namespace dmlkit::app
