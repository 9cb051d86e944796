// The DL2 trainer's run entry and what every trainer's spec shares; see run.h.
#include "cluster/train/run.h"

#include <filesystem>

#include "cluster/train/train_outputs.h"
#include "cluster/workload/experiment.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/parallel_for.h"
#include "core/results_table.h"

namespace dmlkit::cluster {

TrainSource::TrainSource() : experiments_dir(default_experiments_dir()), data_dir(default_data_dir()) {}

Experiment load_train_experiment(const TrainSource& s, const std::string& design) {
  Experiment e = load_experiment(s.experiment, s.experiments_dir);
  if (e.engine != "sim")
    throw Error(e.path, 0, "engine", "an OASiS-model preset cannot train " + design + " (docs/oasis.md)");
  return e;
}

std::string default_train_dir(const TrainSource& s, const std::string& prefix, const std::string& experiment_name) {
  return s.dir.empty() ? "out/" + prefix + "-train-" + experiment_name : s.dir;
}

Dl2TrainConfig Dl2TrainSpec::config() const {
  Dl2TrainConfig c = knobs;
  c.experiment = load_train_experiment(source, "DL2");
  c.data_dir = source.data_dir;
  c.command = source.command;
  c.replay = replay;
  c.explore.mode = exploration == "paper"  ? Dl2Exploration::Paper
                   : exploration == "none" ? Dl2Exploration::None
                                           : Dl2Exploration::Code;
  c.val_threads = resolve_threads(source.threads);
  return c;
}

void Dl2TrainSpec::write_inputs(Results& res, const Dl2TrainConfig& c) const {
  auto& in = res.inputs();
  in["experiment"] = c.experiment.name;
  in["teacher"] = c.teacher;
  in["net"] = c.net;
  in["window"] = c.window;
  in["sl_steps"] = c.sl_steps;
  in["rl_steps"] = c.rl_steps;
  in["actors"] = c.actors;
  in["seed"] = c.seed;
  in["exploration"] = exploration;
  in["gamma"] = c.gamma;
  in["replay"] = c.replay;
  in["reward"] = c.reward;
  in["target"] = c.target;
  in["explore_ratio_max"] = c.explore.code_ratio_max;
  in["entropy_weight"] = c.entropy_weight;
  in["rl_lr"] = c.rl_lr;
  in["sl_lr"] = c.sl_lr;
  in["train_speed_model"] = c.train_speed_model.empty() ? c.experiment.speed_model : c.train_speed_model;
  in["train_traces"] = c.train_traces;
  in["init_model"] = c.init_model;
  in["critic_warmup"] = c.critic_warmup;
  nlohmann::ordered_json seeds = nlohmann::ordered_json::array();
  for (auto s : c.experiment.seeds) seeds.push_back(s);
  in["validation_seeds"] = seeds;
}

std::string train_dir(const Dl2TrainSpec& spec) {
  if (!spec.source.dir.empty()) return spec.source.dir;
  return default_train_dir(spec.source, "dl2", load_train_experiment(spec.source, "DL2").name);
}

namespace {

void check_dl2_spec(const Dl2TrainSpec& spec, const Dl2TrainConfig& c) {
  if (spec.exploration != "code" && spec.exploration != "paper" && spec.exploration != "none")
    throw Error("--exploration: expected code, paper or none, got '" + spec.exploration + "'");
  if (!c.init_model.empty() && !spec.sl_option_given.empty())
    throw Error(spec.sl_option_given +
                ": has no effect with --init-model (RL starts from that model, without a warm-up)");
  check_dl2_train_config(c);
  const std::string dir = default_train_dir(spec.source, "dl2", c.experiment.name);
  if (c.resume && !std::filesystem::is_regular_file(std::filesystem::path(dir) / "checkpoint.json"))
    throw Error("--resume: " + dir + " holds no checkpoint.json to continue from");
}

// The SL accuracy chart and the validation chart (RL, the teacher's and the SL model's levels).
void add_dl2_charts(HtmlReport& page, const Dl2TrainConfig& c, const Dl2TrainResult& r) {
  LineChart acc{"SL: batch accuracy against the teacher", "SL step", "accuracy", {}, {}, {}, 0.0, 1.0, false};
  ChartSeries a{"accuracy", {}, {}, false};
  LineChart val{"Validation average JCT", "step", "average JCT (s)", {}, {}, {}, {}, {}, false};
  ChartSeries v{"dl2 (RL)", {}, {}, false}, t{c.teacher, {}, {}, false};
  for (const auto& p : r.curve) {
    if (p.phase == "sl" && p.accuracy >= 0) {
      a.x.push_back(static_cast<double>(p.step));
      a.y.push_back(p.accuracy);
    }
    if (p.phase == "rl" && p.val_avg_jct_s >= 0) {
      v.x.push_back(static_cast<double>(p.step));
      v.y.push_back(p.val_avg_jct_s);
    }
  }
  acc.series.push_back(a);
  if (!v.x.empty()) {
    t.x = {0, v.x.back()};
    t.y = {r.teacher_val_avg_jct_s, r.teacher_val_avg_jct_s};
    ChartSeries sl{"after SL", {0, v.x.back()}, {r.sl_val_avg_jct_s, r.sl_val_avg_jct_s}, false};
    val.series = {v, t, sl};
  }
  page.add_chart(acc);
  if (!val.series.empty()) page.add_chart(val);
}

}  // namespace

void check(const Dl2TrainSpec& spec) { check_dl2_spec(spec, spec.config()); }

Dl2TrainRun run(const Dl2TrainSpec& spec, const TrainProgress& progress) {
  Dl2TrainRun out;
  out.config = spec.config();
  const Dl2TrainConfig& c = out.config;
  check_dl2_spec(spec, c);
  out.dir = default_train_dir(spec.source, "dl2", c.experiment.name);
  out.train = train_dl2(c, out.dir, progress);
  const Dl2TrainResult& r = out.train;

  Results& res = out.results;
  spec.write_inputs(res, c);
  auto add = [&](const std::string& name, double jct, const std::string& file, long step) {
    add_validation_record(res, c.seed, name, jct, file, step);
  };
  add(c.teacher, r.teacher_val_avg_jct_s, "", 0);
  add(c.init_model.empty() ? "dl2-sl" : "dl2-init", r.sl_val_avg_jct_s, r.sl_model,
      c.init_model.empty() ? c.sl_steps : 0);
  add("dl2-best", r.best_val_avg_jct_s, r.best_model, r.best_step);
  add("dl2-last", r.last_val_avg_jct_s, r.last_model, c.rl_steps);
  res.derived()["slots_simulated"] = r.slots_simulated;
  res.derived()["exploration_override_fraction"] = r.override_fraction;
  out.training_csv = dl2_curve_csv(r.curve);

  out.report = HtmlReport("DL2 training: " + c.experiment.name);
  out.report.add_facts({{"Experiment", c.experiment.name},
                        {"Teacher", c.teacher},
                        {"Network", c.net + ", window " + std::to_string(c.window)},
                        {"Steps", "SL " + std::to_string(c.sl_steps) + ", RL " + std::to_string(c.rl_steps)},
                        {"Actors", std::to_string(c.actors)},
                        {"Exploration", spec.exploration}});
  out.report.add_table(rounded_records_table(res), "Average JCT (s) on the preset's evaluation seeds");
  add_dl2_charts(out.report, c, r);
  return out;
}

}  // namespace dmlkit::cluster
