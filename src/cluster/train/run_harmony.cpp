// The run entries of the two Harmony designs' trainers (`cluster train harmony`,
// `cluster train harmony-seq2seq`); see run.h.
#include <filesystem>

#include "cluster/train/run.h"
#include "cluster/train/train_outputs.h"
#include "core/results_table.h"
#include "core/table.h"

namespace dmlkit::cluster {

namespace {

std::string path_in(const std::string& dir, const std::string& name) {
  return (std::filesystem::path(dir) / name).string();
}

std::string on_off(bool on) { return on ? "on" : "off"; }

}  // namespace

// ---------------------------------------------------------------- harmony
HarmonyTrainConfig HarmonyTrainSpec::config() const {
  HarmonyTrainConfig c = knobs;
  apply_harmony_source(source, switches, "Harmony", c);
  return c;
}

void HarmonyTrainSpec::write_inputs(Results& res, const HarmonyTrainConfig& c) const {
  put_harmony_drl_inputs(res, c);
  auto& in = res.inputs();
  in["jobs"] = c.jobs;
  in["new_jobs"] = c.new_jobs;
  in["neurons"] = c.neurons;
  in["layers"] = c.layers;
  in["reward_model"] = c.reward_model;
  in["rm_neurons"] = c.rm_neurons;
  in["rm_layers"] = c.rm_layers;
  in["rm_augment"] = c.rm_augment;
  in["type_counts"] = c.type_counts;
  in["resume"] = c.resume;
}

std::string train_dir(const HarmonyTrainSpec& spec) {
  if (!spec.source.dir.empty()) return spec.source.dir;
  return default_train_dir(spec.source, "harmony", load_train_experiment(spec.source, "Harmony").name);
}

void check(const HarmonyTrainSpec& spec) { check_harmony_train_config(spec.config()); }

HarmonyTrainRun run(const HarmonyTrainSpec& spec, const TrainProgress& progress) {
  HarmonyTrainRun out;
  out.config = spec.config();
  const HarmonyTrainConfig& c = out.config;
  check_harmony_train_config(c);
  out.dir = default_train_dir(spec.source, "harmony", c.experiment.name);
  out.train = train_harmony(c, out.dir, progress);
  const HarmonyTrainResult& r = out.train;

  Results& res = out.results;
  spec.write_inputs(res, c);
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    add_validation_record(res, c.seed, name, jct, file, step);
  };
  for (const auto& [p, j] : r.baseline_val_jct_s) add(p, j, "", 0);
  add(c.resume ? "harmony-resumed" : "harmony-init", r.init_val_jct_s, "", r.start_step);
  if (!r.imitate_policy.empty()) add("harmony-imitation", r.il_val_jct_s, path_in(out.dir, "imitation.json"), 0);
  add("harmony-best", r.best_val_jct_s, r.best_model, r.best_step);
  add("harmony-last", r.last_val_jct_s, r.last_model, c.rl_steps);
  res.derived()["reward_model_samples"] = r.rm_samples;
  res.derived()["reward_model_rows"] = r.rm_rows;
  put_harmony_drl_derived(res, r);
  for (const auto& [p, v] : r.rm_err_by_policy) res.derived()["reward_model_mean_rel_err_on_" + p] = v;
  out.training_csv = harmony_training_csv(r);
  out.reward_model_csv = harmony_reward_model_csv(r);

  out.report = HtmlReport("Harmony training: " + c.experiment.name);
  out.report.add_facts(
      {{"Experiment", c.experiment.name},
       {"Interference", c.experiment.interference},
       {"Networks", std::to_string(c.layers) + " x " + std::to_string(c.neurons) + " (critic " + on_off(c.critic) +
                        "), reward model " + std::to_string(c.rm_layers) + " x " + std::to_string(c.rm_neurons)},
       {"Exploration / replay", on_off(c.exploration) + " / " + on_off(c.replay)},
       {"Reward model", std::to_string(r.rm_samples) + " samples (" + std::to_string(r.rm_rows) +
                            " rows with permutations), hold-out mean relative error " +
                            fixed(100 * r.rm_fit.holdout.mean_rel_err, 1) + " %"},
       {"DRL", drl_summary_line(c.rl_steps, r)}});
  out.report.add_table(rounded_records_table(res),
                       "Average JCT (s) on the validation traces (simulator, ground truth)");
  add_harmony_charts(out.report, r, "harmony", r.start_step);
  return out;
}

// ---------------------------------------------------------------- harmony-seq2seq
S2sTrainConfig S2sTrainSpec::config() const {
  S2sTrainConfig c = knobs;
  apply_harmony_source(source, switches, "harmony-seq2seq", c);
  return c;
}

void S2sTrainSpec::write_inputs(Results& res, const S2sTrainConfig& c) const {
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
}

std::string train_dir(const S2sTrainSpec& spec) {
  if (!spec.source.dir.empty()) return spec.source.dir;
  return default_train_dir(spec.source, "harmony-seq2seq", load_train_experiment(spec.source, "harmony-seq2seq").name);
}

void check(const S2sTrainSpec& spec) { check_s2s_train_config(spec.config()); }

S2sTrainRun run(const S2sTrainSpec& spec, const TrainProgress& progress) {
  S2sTrainRun out;
  out.config = spec.config();
  const S2sTrainConfig& c = out.config;
  check_s2s_train_config(c);
  out.dir = default_train_dir(spec.source, "harmony-seq2seq", c.experiment.name);
  out.train = train_harmony_seq2seq(c, out.dir, progress);
  const S2sTrainResult& r = out.train;

  Results& res = out.results;
  spec.write_inputs(res, c);
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    add_validation_record(res, c.seed, name, jct, file, step);
  };
  for (const auto& [p, j] : r.baseline_val_jct_s) add(p, j, "", 0);
  add(c.resume ? "harmony-seq2seq-resumed" : "harmony-seq2seq-init", r.init_val_jct_s, "", r.start_step);
  if (!r.imitate_policy.empty())
    add("harmony-seq2seq-imitation", r.il_val_jct_s, path_in(out.dir, "imitation.json"), 0);
  add("harmony-seq2seq-best", r.best_val_jct_s, r.best_model, r.best_step);
  add("harmony-seq2seq-last", r.last_val_jct_s, r.last_model, c.rl_steps);
  res.derived()["reward_model_samples"] = r.rm_samples;
  put_harmony_drl_derived(res, r);
  out.training_csv = harmony_training_csv(r);
  out.reward_model_csv = harmony_reward_model_csv(r);

  out.report = HtmlReport("harmony-seq2seq training: " + c.experiment.name);
  out.report.add_facts({{"Experiment", c.experiment.name},
                        {"Interference", c.experiment.interference},
                        {"Networks", "attention encoder E = " + std::to_string(c.embed) + ", " +
                                         std::to_string(c.heads) + " heads, pointer decoder (critic " +
                                         on_off(c.critic) + "); reward model E = " + std::to_string(c.rm_embed)},
                        {"Exploration / replay", on_off(c.exploration) + " / " + on_off(c.replay)},
                        {"Reward model", std::to_string(r.rm_samples) + " samples, hold-out mean relative error " +
                                             fixed(100 * r.rm_fit.holdout.mean_rel_err, 1) + " %"},
                        {"DRL", drl_summary_line(c.rl_steps, r)}});
  out.report.add_table(rounded_records_table(res),
                       "Average JCT (s) on the validation traces (simulator, ground truth)");
  add_harmony_charts(out.report, r, "harmony-seq2seq", r.start_step);
  return out;
}

}  // namespace dmlkit::cluster
