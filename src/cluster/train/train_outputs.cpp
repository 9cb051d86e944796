// What the trainers' run entries share to build their outputs; see train_outputs.h.
#include "cluster/train/train_outputs.h"

#include <filesystem>

#include "core/parallel_for.h"
#include "core/table.h"

namespace dmlkit::cluster {

void add_validation_record(Results& res, uint64_t seed, const std::string& name, double jct, const std::string& file,
                           long step) {
  ResultRecord& rec = res.add(name, seed);
  rec.metrics["val_avg_jct_s"] = jct;
  rec.metrics["step"] = step;
  if (!file.empty()) rec.files["model"] = std::filesystem::path(file).filename().string();
}

void apply_harmony_source(const TrainSource& source, const HarmonyRunSwitches& switches, const std::string& design,
                          HarmonyDrlConfig& c) {
  c.experiment = load_train_experiment(source, design);
  if (!switches.interference.empty()) c.experiment.interference = switches.interference;
  c.data_dir = source.data_dir;
  c.command = source.command;
  c.critic = switches.critic;
  c.exploration = switches.exploration;
  c.replay = switches.replay;
  c.standardize = switches.standardize;
  c.threads = resolve_threads(source.threads);
}

void put_harmony_drl_inputs(Results& res, const HarmonyDrlConfig& c) {
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

void put_harmony_drl_derived(Results& res, const HarmonyDrlResult& r) {
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

std::string harmony_training_csv(const HarmonyDrlResult& r) {
  TextTable curve({"step", "policy_loss", "value_loss", "entropy", "epsilon", "val_avg_jct_s", "model_avg_jct_s"});
  for (const auto& p : r.curve)
    curve.add_row({std::to_string(p.step), fixed(p.policy_loss, 5), fixed(p.value_loss, 6), fixed(p.entropy, 5),
                   fixed(p.epsilon, 3), p.val_avg_jct_s >= 0 ? fixed(p.val_avg_jct_s, 1) : "",
                   p.model_avg_jct_s >= 0 ? fixed(p.model_avg_jct_s, 1) : ""});
  return curve.to_csv();
}

std::string harmony_reward_model_csv(const HarmonyDrlResult& r) {
  TextTable rmc({"epoch", "holdout_mse"});
  for (size_t i = 0; i < r.rm_fit.holdout_mse_curve.size(); ++i)
    rmc.add_row({std::to_string(i + 1), fixed(r.rm_fit.holdout_mse_curve[i], 6)});
  return rmc.to_csv();
}

std::string drl_summary_line(long rl_steps, const HarmonyDrlResult& r) {
  const auto count = [](long n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); };
  return count(rl_steps, "update") + " over " + count(r.intervals, "interval") + " of " + count(r.episodes, "episode");
}

void add_harmony_charts(HtmlReport& page, const HarmonyDrlResult& r, const std::string& name, long start_step) {
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

}  // namespace dmlkit::cluster
