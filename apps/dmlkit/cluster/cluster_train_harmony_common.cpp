// What the `cluster train` commands share; see cluster_train_harmony_common.h.
#include "dmlkit/cluster/cluster_train_harmony_common.h"

#include <filesystem>
#include <ostream>

#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/parallel_for.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"

namespace dmlkit::app {

namespace cl = dmlkit::cluster;

TrainCliOptions::TrainCliOptions() : experiments_dir(cl::default_experiments_dir()), data_dir(default_data_dir()) {}

void add_train_experiment_options(CLI::App& cmd, TrainCliOptions& o, const std::string& example) {
  cmd.add_option("--experiment", o.experiment, "Experiment preset (name or file), e.g. " + example)->required();
  cmd.add_option("--experiments-dir", o.experiments_dir,
                 std::string("Folder of experiment presets (") + kExperimentsDirDefault + ")");
  cmd.add_option("--data-dir", o.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  add_output_options(cmd, o.out, o.format);
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
  cmd.add_flag("--raw-advantages", o.raw_advantages, "Do not divide each batch's advantages by their standard deviation");
}

void add_harmony_drl_options(CLI::App& cmd, cl::HarmonyDrlConfig& c, const std::string& rl_steps_help,
                             const std::string& entropy_help) {
  cmd.add_option("--rl-steps", c.rl_steps, rl_steps_help)->check(at_least(0))->capture_default_str();
  cmd.add_option("--batch", c.batch, "Steps per update")->check(CLI::Range(1, 65536))->capture_default_str();
  cmd.add_option("--memory", c.memory, "FIFO replay capacity (steps)")->check(CLI::Range(1, 10000000))->capture_default_str();
  cmd.add_option("--lr", c.lr, "Adam learning rate (actor and critic)")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd.add_option("--entropy-weight", c.entropy_weight, entropy_help)->check(CLI::Range(0.0, 100.0))->capture_default_str();
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
  cmd.add_option("--epsilon-start", c.epsilon_start, "Exploration probability at the start")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd.add_option("--epsilon-end", c.epsilon_end, "... after --epsilon-steps updates")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd.add_option("--epsilon-steps", c.epsilon_steps, "Updates over which epsilon decays linearly")->check(at_least(0))->capture_default_str();
  cmd.add_option("--train-traces", c.train_traces, "DRL training traces (seeds 1000000 + k)")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd.add_option("--val-traces", c.val_traces, "Validation traces (seeds 2000000 + k)")->check(CLI::Range(1, 10000))->capture_default_str();
  cmd.add_option("--val-every", c.val_every, "Validate every N updates")->check(at_least(1))->capture_default_str();
  cmd.add_option("--checkpoint-every", c.checkpoint_every, "Checkpoint every N updates")->check(at_least(1))->capture_default_str();
}

void add_harmony_imitation_options(CLI::App& cmd, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--imitate", c.imitate,
                 "[A] warm-start the actor by imitating a placer before DRL: none, auto (the baseline best on the "
                 "validation traces) or a policy name")
      ->capture_default_str();
  cmd.add_option("--il-steps", c.il_steps, "Imitation: supervised updates (batches of --batch steps)")->check(at_least(0))->capture_default_str();
  cmd.add_option("--il-lr", c.il_lr, "Imitation: Adam learning rate")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd.add_option("--il-traces", c.il_traces, "Imitation: teacher traces (training seeds; 0: --train-traces)")->check(at_least(0))->capture_default_str();
  cmd.add_option("--critic-warmup", c.critic_warmup, "[A] first DRL updates train the critic only")->check(at_least(0))->capture_default_str();
}

void add_harmony_rm_sampling_options(CLI::App& cmd, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--rm-traces", c.rm_traces, "Reward model: traces per collecting placer")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd.add_option("--rm-random", c.rm_random, "Reward model: random-placement runs, as a share of the baselines' runs")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
}

void add_harmony_rm_fit_options(CLI::App& cmd, cl::HarmonyDrlConfig& c) {
  cmd.add_option("--rm-epochs", c.rm_epochs, "Reward model: training epochs")->check(at_least(0))->capture_default_str();
  cmd.add_option("--rm-holdout", c.rm_holdout, "Reward model: share of samples held out")->check(CLI::Range(0.0, 0.95))->capture_default_str();
  cmd.add_option("--rm-lr", c.rm_lr, "Reward model: Adam learning rate")->check(CLI::Range(1e-9, 1.0))->capture_default_str();
  cmd.add_option("--rm-policies", c.rm_policies, "Reward model: placers whose runs give the samples")->delimiter(',')->capture_default_str();
}

void add_train_threads_option(CLI::App& cmd, TrainCliOptions& o) {
  cmd.add_option("--threads", o.threads, "Threads for sample collection and validation (0: all cores)")->check(at_least(0));
}

void apply_harmony_cli(const TrainCliOptions& o, const std::vector<std::string>& command, const std::string& design,
                       cl::HarmonyDrlConfig& c) {
  c.experiment = cl::load_experiment(o.experiment, o.experiments_dir);
  if (c.experiment.engine != "sim")
    throw Error(c.experiment.path, 0, "engine", "an OASiS-model preset cannot train " + design + " (docs/oasis.md)");
  if (!o.interference.empty()) c.experiment.interference = o.interference;
  c.data_dir = o.data_dir;
  c.command = command;
  c.critic = !o.no_critic;
  c.exploration = !o.no_exploration;
  c.replay = !o.no_replay;
  c.standardize = !o.raw_advantages;
  c.threads = resolve_threads(o.threads);
}

HarmonyTrainBars::HarmonyTrainBars(const std::string& prefix, int rm_epochs, long rl_steps)
    : samples_(prefix + " samples", 0),
      rm_(prefix + " reward model", static_cast<double>(rm_epochs)),
      rl_(prefix + " DRL", static_cast<double>(rl_steps)) {}

std::function<void(const std::string&, long, long, const std::string&)> HarmonyTrainBars::progress() {
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

void put_harmony_drl_inputs(Results& res, const cl::HarmonyDrlConfig& c) {
  auto& in = res.inputs();
  in["experiment"] = c.experiment.name;
  in["interference"] = c.experiment.interference;
  in["seed"] = c.seed;
  in["critic"] = c.critic;
  in["exploration"] = c.exploration;
  in["replay"] = c.replay;
  in["rl_steps"] = c.rl_steps;
  in["batch"] = c.batch;
  in["memory"] = c.memory;
  in["lr"] = c.lr;
  in["entropy_weight"] = c.entropy_weight;
  in["gamma"] = c.gamma;
  in["reward"] = c.reward;
  in["reward_scale"] = c.reward_scale;
  in["center_advantages"] = c.center_advantages;
  in["critic_warmup"] = c.critic_warmup;
  in["standardize_advantages"] = c.standardize;
  in["imitate"] = c.imitate;
  in["il_steps"] = c.il_steps;
  in["il_lr"] = c.il_lr;
  in["il_traces"] = c.il_traces;
  in["defer"] = c.defer;
  in["epsilon_start"] = c.epsilon_start;
  in["epsilon_end"] = c.epsilon_end;
  in["epsilon_steps"] = c.epsilon_steps;
  in["train_traces"] = c.train_traces;
  in["val_traces"] = c.val_traces;
  in["rm_traces"] = c.rm_traces;
  in["rm_random"] = c.rm_random;
  in["rm_epochs"] = c.rm_epochs;
  in["rm_holdout"] = c.rm_holdout;
}

void add_validation_record(Results& res, uint64_t seed, const std::string& name, double jct, const std::string& file,
                           long step) {
  ResultRecord& rec = res.add(name, seed);
  rec.metrics["val_avg_jct_s"] = jct;
  rec.metrics["step"] = step;
  if (!file.empty()) rec.files["model"] = std::filesystem::path(file).filename().string();
}

void put_harmony_drl_derived(Results& res, const cl::HarmonyDrlResult& r) {
  auto& d = res.derived();
  d["reward_model_holdout_rows"] = r.rm_fit.holdout_rows.size();
  d["reward_model_holdout_mse"] = r.rm_fit.holdout.mse;
  d["reward_model_holdout_mae"] = r.rm_fit.holdout.mae;
  d["reward_model_holdout_mean_rel_err"] = r.rm_fit.holdout.mean_rel_err;
  d["reward_model_train_mean_rel_err"] = r.rm_fit.train.mean_rel_err;
  d["intervals_simulated"] = r.intervals;
  d["episodes"] = r.episodes;
  d["explored_fraction"] = r.explored_fraction;
  if (!r.imitate_policy.empty()) {
    d["imitation_teacher"] = r.imitate_policy;
    d["imitation_samples"] = r.il_samples;
    d["imitation_accuracy"] = r.il_accuracy;
    d["imitation_chance"] = r.il_chance;
  }
}

void write_harmony_tables(const std::string& dir, const Results& res, const cl::HarmonyDrlResult& r,
                          bool model_jct_column) {
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_results_files(dir, res);
  std::vector<std::string> head = {"step", "policy_loss", "value_loss", "entropy", "epsilon", "val_avg_jct_s"};
  if (model_jct_column) head.push_back("model_avg_jct_s");
  TextTable curve(head);
  for (const auto& p : r.curve) {
    std::vector<std::string> row = {std::to_string(p.step), fixed(p.policy_loss, 5), fixed(p.value_loss, 6),
                                    fixed(p.entropy, 5),    fixed(p.epsilon, 3),
                                    p.val_avg_jct_s >= 0 ? fixed(p.val_avg_jct_s, 1) : ""};
    if (model_jct_column) row.push_back(p.model_avg_jct_s >= 0 ? fixed(p.model_avg_jct_s, 1) : "");
    curve.add_row(row);
  }
  write_file_atomic(path("training.csv"), curve.to_csv());
  TextTable rmc({"epoch", "holdout_mse"});
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i)
    rmc.add_row({std::to_string(i + 1), fixed(r.rm_fit.holdout_mse_curve[i], 6)});
  write_file_atomic(path("reward_model.csv"), rmc.to_csv());
}

void write_results_files(const std::string& dir, const Results& res) {
  const auto path = [&](const std::string& n) { return (std::filesystem::path(dir) / n).string(); };
  write_file_atomic(path("results.json"), res.json_text());
  write_file_atomic(path("records.csv"), res.records_table().to_csv());
  write_file_atomic(path("summary.csv"), res.summary_table().to_csv());
}

std::string drl_summary_line(long rl_steps, const cl::HarmonyDrlResult& r) {
  const auto count = [](long n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  };
  return count(rl_steps, "update") + " over " + count(r.intervals, "interval") + " of " + count(r.episodes, "episode");
}

void add_harmony_charts(HtmlReport& page, const cl::HarmonyDrlResult& r, const std::string& name, long start_step) {
  LineChart rm{"Reward model: hold-out MSE", "epoch", "MSE (speed / type scale)^2", {}, {}, {}, {}, {}, false};
  ChartSeries rs{"hold-out", {}, {}, false};
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i) {
    rs.x.push_back(static_cast<double>(i + 1));
    rs.y.push_back(r.rm_fit.holdout_mse_curve[i]);
  }
  rm.series.push_back(rs);
  // No curve when the reward model was not fitted in this run (--resume, --reward-model FILE).
  if (!rs.x.empty()) page.add_chart(rm);
  LineChart val{"Validation average JCT", "DRL update", "average JCT (s)", {}, {}, {}, {}, {}, false};
  ChartSeries v{name, {static_cast<double>(start_step)}, {r.init_val_jct_s}, false};
  for (const auto& p : r.curve)
    if (p.val_avg_jct_s >= 0) {
      v.x.push_back(static_cast<double>(p.step));
      v.y.push_back(p.val_avg_jct_s);
    }
  val.series.push_back(v);
  const double x_end = v.x.back() > 0 ? v.x.back() : 1.0;
  for (const auto& [baseline, j] : r.baseline_val_jct_s) val.series.push_back({baseline, {0, x_end}, {j, j}, false});
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
