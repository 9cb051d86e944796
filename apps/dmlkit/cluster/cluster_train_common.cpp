// What the `cluster train` commands share; see cluster_train_common.h.
#include "dmlkit/cluster/cluster_train_common.h"

#include <filesystem>
#include <ostream>

#include "core/output_dir.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

cl::HarmonyRunSwitches TrainCliOptions::switches() const {
  cl::HarmonyRunSwitches s;
  s.interference = interference;
  s.critic = !no_critic;
  s.exploration = !no_exploration;
  s.replay = !no_replay;
  s.standardize = !raw_advantages;
  return s;
}

void add_train_experiment_options(CLI::App& cmd, cl::TrainSource& s, TrainCliOptions& o, const std::string& example) {
  cmd.add_option("--experiment", s.experiment, "Experiment preset (name or file), e.g. " + example)->required();
  cmd.add_option("--experiments-dir", s.experiments_dir,
                 std::string("Folder of experiment presets (") + kExperimentsDirDefault + ")");
  cmd.add_option("--data-dir", s.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  add_output_options(cmd, s.dir, o.format);
}

void add_harmony_sampling_head(CLI::App& cmd, TrainCliOptions& o, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--interference", o.interference, "Ground truth of the training samples (default: the preset's)")
      ->check(CLI::IsMember({"none", "contention", "gavel"}));
  cmd.add_option("--seed", c.seed, "Seed of the networks, the sampling and the exploration")->capture_default_str();
}

void add_harmony_deep_dive_flags(CLI::App& cmd, TrainCliOptions& o) {
  cmd.add_flag("--no-critic", o.no_critic, "Deep-dive: no value network (baseline = the batch's mean target)");
  cmd.add_flag("--no-exploration", o.no_exploration, "Deep-dive: no epsilon-greedy heuristic exploration");
  cmd.add_flag("--no-replay", o.no_replay, "Deep-dive: each update uses the latest interval's steps only");
  cmd.add_flag("--raw-advantages", o.raw_advantages,
               "Do not divide each batch's advantages by their standard deviation");
}

void add_harmony_drl_options(CLI::App& cmd, cl::HarmonyDrlConfig& c, const std::string& rl_steps_help,
                             const std::string& entropy_help) {
  cmd.add_option("--rl-steps", c.rl_steps, rl_steps_help)->check(at_least(0))->capture_default_str();
  cmd.add_option("--batch", c.batch, "Steps per update")->check(CLI::Range(1, 65536))->capture_default_str();
  cmd.add_option("--memory", c.memory, "FIFO replay capacity (steps)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd.add_option("--lr", c.lr, "Adam learning rate (actor and critic)")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd.add_option("--entropy-weight", c.entropy_weight, entropy_help)
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd.add_option("--gamma", c.gamma, "Discount over intervals (0: each step's target is its interval's reward)")
      ->check(CLI::Range(0.0, 0.9999))
      ->capture_default_str();
  cmd.add_option("--reward", c.reward,
                 "Reward per interval: progress (DL2's normalised progress) or [A] jct (minus the jobs' time in the "
                 "system, waiting jobs included; use with --gamma > 0)")
      ->check(CLI::IsMember({"progress", "jct"}))
      ->capture_default_str();
  cmd.add_option("--reward-scale", c.reward_scale,
                 "[A] rewards divided by the trace's number of jobs (jobs), and also multiplied by 1 - gamma "
                 "(jobs-gamma), so that the returns are O(1); none: as they are")
      ->check(CLI::IsMember({"none", "jobs", "jobs-gamma"}))
      ->capture_default_str();
  cmd.add_flag("--center-advantages", c.center_advantages,
               "[A] subtract each batch's mean advantage (before dividing by their standard deviation)");
  cmd.add_option("--epsilon-start", c.epsilon_start, "Exploration probability at the start")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--epsilon-end", c.epsilon_end, "... after --epsilon-steps updates")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--epsilon-steps", c.epsilon_steps, "Updates over which epsilon decays linearly")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--train-traces", c.train_traces, "DRL training traces (seeds 1000000 + k)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--val-traces", c.val_traces, "Validation traces (seeds 2000000 + k)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd.add_option("--val-every", c.val_every, "Validate every N updates")->check(at_least(1))->capture_default_str();
  cmd.add_option("--checkpoint-every", c.checkpoint_every, "Checkpoint every N updates")
      ->check(at_least(1))
      ->capture_default_str();
}

void add_harmony_imitation_options(CLI::App& cmd, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--imitate", c.imitate,
                 "[A] warm-start the actor by imitating a placer before DRL: none, auto (the baseline best on the "
                 "validation traces) or a policy name")
      ->capture_default_str();
  cmd.add_option("--il-steps", c.il_steps, "Imitation: supervised updates (batches of --batch steps)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--il-lr", c.il_lr, "Imitation: Adam learning rate")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd.add_option("--il-traces", c.il_traces, "Imitation: teacher traces (training seeds; 0: --train-traces)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--critic-warmup", c.critic_warmup, "[A] first DRL updates train the critic only")
      ->check(at_least(0))
      ->capture_default_str();
}

void add_harmony_rm_sampling_options(CLI::App& cmd, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--rm-traces", c.rm_traces, "Reward model: traces per collecting placer")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--rm-random", c.rm_random, "Reward model: random-placement runs, as a share of the baselines' runs")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
}

void add_harmony_rm_fit_options(CLI::App& cmd, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--rm-epochs", c.rm_epochs, "Reward model: training epochs")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_option("--rm-holdout", c.rm_holdout, "Reward model: share of samples held out")
      ->check(CLI::Range(0.0, 0.95))
      ->capture_default_str();
  cmd.add_option("--rm-lr", c.rm_lr, "Reward model: Adam learning rate")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  cmd.add_option("--rm-policies", c.rm_policies, "Reward model: placers whose runs give the samples")
      ->delimiter(',')
      ->capture_default_str();
}

void add_train_threads_option(CLI::App& cmd, cl::TrainSource& s) {
  cmd.add_option("--threads", s.threads, "Threads for sample collection and validation (0: all cores)")
      ->check(at_least(0));
}

HarmonyTrainBars::HarmonyTrainBars(const std::string& prefix, int rm_epochs, long rl_steps)
    : samples_(prefix + " samples", 0),
      rm_(prefix + " reward model", static_cast<double>(rm_epochs)),
      rl_(prefix + " DRL", static_cast<double>(rl_steps)) {}

cl::TrainProgress HarmonyTrainBars::progress() {
  return [this](const std::string& phase, long step, long, const std::string& d) {
    if (phase == "samples") {
      samples_.update(static_cast<double>(step), d);
    } else if (phase == "reward model") {
      samples_.finish();
      rm_.update(static_cast<double>(step), d);
    } else {
      rm_.finish();
      rl_.update(static_cast<double>(step), d);
    }
  };
}

void HarmonyTrainBars::finish() {
  samples_.finish();
  rm_.finish();
  rl_.finish();
}

void write_results_files(const std::string& dir, const Results& res) {
  write_in(dir, "results.json", res.json_text());
  write_in(dir, "records.csv", res.records_table().to_csv());
  write_in(dir, "summary.csv", res.summary_table().to_csv());
}

void write_in(const std::string& dir, const std::string& name, const std::string& content) {
  write_file_atomic((std::filesystem::path(dir) / name).string(), content);
}

void print_harmony_summary(Context& ctx, const std::string& format, const Results& res, const std::string& head,
                           const std::string& rm_count, const cl::HarmonyDrlResult& r, const TextTable& table) {
  if (format == "json") {
    ctx.out << res.json_text();
  } else if (format == "csv") {
    ctx.out << res.records_table().to_csv();
  } else {
    ctx.out << head << "reward model: hold-out mean relative error " << fixed(100 * r.rm_fit.holdout.mean_rel_err, 1)
            << " % over " << r.rm_fit.holdout_rows.size() << " " << rm_count << "\n"
            << "wall time: samples + reward model " << fixed(r.rm_seconds, 1) << " s, DRL " << fixed(r.rl_seconds, 1)
            << " s\n\n"
            << table.render();
  }
}

}  // namespace dmlkit::app
