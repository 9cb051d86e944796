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

struct S2sTrainOptions : TrainCliOptions {
  cl::S2sTrainSpec spec;
};

int run_train_s2s(S2sTrainOptions& o, Context& ctx) {
  cl::S2sTrainSpec& spec = o.spec;
  spec.switches = o.switches();
  cl::check(spec);  // before the output folder is created
  const std::string dir = cl::train_dir(spec);
  // A resumed run keeps the models; its results/report files are rewritten.
  if (!spec.knobs.resume)
    prepare_incremental_output(
        dir,
        {"reward.json", "checkpoint.json", "best.json", "last.json", "results.json", "records.csv", "summary.csv",
         "training.csv", "reward_model.csv", "report.html", "imitation.json"},
        false);
  HarmonyTrainBars bars("seq2seq", spec.knobs.rm_epochs, spec.knobs.rl_steps);
  const auto r = cl::run(spec, bars.progress());
  bars.finish();

  write_results_files(dir, r.results);
  write_in(dir, "training.csv", r.training_csv);
  write_in(dir, "reward_model.csv", r.reward_model_csv);
  write_in(dir, "report.html", r.report.render(default_chartjs_path()));

  const cl::HarmonyDrlConfig& c = r.config;
  print_harmony_summary(ctx, o.format, r.results,
                        "harmony-seq2seq on " + c.experiment.name + " (" + c.experiment.interference +
                            "; validation: " + std::to_string(c.val_traces) + " traces)\n",
                        "samples", r.train, rounded_records_table(r.results));
  print_output_location(ctx, o.format, std::filesystem::absolute(r.dir).lexically_normal().string());
  return 0;
}

}  // namespace

void add_cluster_train_harmony_seq2seq_command(CLI::App& train, Context& ctx) {
  auto& o = ctx.make<S2sTrainOptions>();
  auto* cmd = train.add_subcommand("harmony-seq2seq",
                                   "Harmony's journal design: seq2seq reward model on the baselines' samples, then DRL "
                                   "of the attention actor with a pointer decoder on predicted rewards");
  add_train_experiment_options(*cmd, o.spec.source, o, "harmony-testbed");
  add_harmony_sampling_head(*cmd, o, o.spec.knobs);
  cmd->add_option("--embed", o.spec.knobs.embed, "Attention width E (actor and critic)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--heads", o.spec.knobs.heads, "Attention heads (divide --embed)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--max-jobs", o.spec.knobs.max_jobs,
                  "Job tokens in a training row (older running jobs beyond are left out)")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  add_harmony_deep_dive_flags(*cmd, o);
  cmd->add_flag("--resume", o.spec.knobs.resume,
                "Continue from --out's checkpoint.json (same experiment, interference and seed)");
  add_harmony_drl_options(*cmd, o.spec.knobs, "DRL updates (in total, with --resume)",
                          "Weight of the entropy term (mean over steps of sum over servers)");
  cmd->add_option("--rm-embed", o.spec.knobs.rm_embed, "Reward model: attention width")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--rm-heads", o.spec.knobs.rm_heads, "Reward model: attention heads")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  add_harmony_rm_sampling_options(*cmd, o.spec.knobs);
  add_harmony_rm_fit_options(*cmd, o.spec.knobs);
  add_harmony_imitation_options(*cmd, o.spec.knobs);
  cmd->add_flag("--defer", o.spec.knobs.defer,
                "[A] one more pointer target 'this job waits for the next interval' (a learned key; not in the paper)");
  cmd->add_option("--job-exploration", o.spec.knobs.job_exploration,
                  "[A] explore by whole jobs: with probability epsilon per new job, all its tasks on one server "
                  "drawn among those with room for it (occupied: holding another job's task; any), instead of "
                  "the per-task bin-packing/load-balancing step; off: the per-task one")
      ->check(CLI::IsMember({"off", "occupied", "any"}))
      ->capture_default_str();
  cmd->add_option("--rollout", o.spec.knobs.rollout,
                  "Where DRL episodes run: reward-model (the paper's premise) or simulator ([A] a departure: the "
                  "real simulator's ground truth; needs --reward jct and --gamma > 0)")
      ->check(CLI::IsMember({"reward-model", "simulator"}))
      ->capture_default_str();
  add_train_threads_option(*cmd, o.spec.source);
  cmd->callback([&o, &ctx, cmd] {
    o.spec.source.command = given_options(*cmd, "dmlkit cluster train harmony-seq2seq");
    ctx.run = [&o, &ctx] { return run_train_s2s(o, ctx); };
  });
}

}  // namespace dmlkit::app
