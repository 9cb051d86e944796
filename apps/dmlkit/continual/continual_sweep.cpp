// `dmlkit continual angle-sweep`: the synthetic study of "Angle Matters" (spec B.2-B.4, B.8):
// task-1 test error after task 2 against the angle between the task signals, per variant, over
// seeds; writes results.json, records.csv and summary.csv (one record per variant, angle and
// seed; the summary over seeds is core/results.h's), critical_angles.csv and report.html, and
// prints the critical angles.
#include <nlohmann/json.hpp>
#include <ostream>

#include "continual/angle_sweep.h"
#include "continual/results.h"
#include "core/html_report.h"
#include "core/output_dir.h"
#include "core/results.h"
#include "core/progress.h"
#include "core/table.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"
#include "dmlkit/commands.h"

namespace dmlkit::app {

namespace cont = dmlkit::continual;

namespace {

struct AngleSweepOptions {
  cont::AngleSweepConfig config;
  std::string angles = "0:180:1";
  std::vector<std::string> variants{"cl", "replay", "ewc", "ewc-replay"};
  std::string backend = "torch";
  std::string fisher = "empirical-sum";
  std::string ewc_step = "gradient";
  std::string out = "out/continual-angle-sweep";
  std::string format = "table";
};

std::string opt_angle(const std::optional<double>& a) { return a ? fixed(*a, 1) : "none"; }

Results sweep_results(const cont::AngleSweepConfig& c, const cont::AngleSweepResult& r) {
  Results res("continual angle-sweep", "variant");
  res.inputs() = {{"patch_len", c.data.patch_len},
                  {"num_patches", c.data.num_patches},
                  {"signal_norm", c.data.signal_norm},
                  {"noise_std", c.data.noise_std},
                  {"noise_orthogonal", c.data.noise_orthogonal},
                  {"train_per_task", c.data.train_per_task},
                  {"test_per_task", c.data.test_per_task},
                  {"filters_per_class", c.filters_per_class},
                  {"power_q", c.power_q},
                  {"learning_rate", c.learning_rate},
                  {"epochs", c.epochs},
                  {"replay_fraction", c.replay_fraction},
                  {"ewc_lambda", c.ewc_lambda},
                  {"harmful_error", c.harmful_error},
                  {"runs", c.seeds},
                  {"seed", c.seed},
                  {"angles_deg", c.angles_deg},
                  {"backend", cont::backend_name(c.backend)}};
  // Only with an EWC variant: the EWC settings are recorded when they can matter (cl and replay
  // sweeps keep the inputs they had before these options existed).
  if (c.has_ewc()) {
    res.inputs()["fisher"] = learn::fisher_kind_name(c.fisher);
    res.inputs()["ewc_step"] = learn::penalty_step_name(c.ewc_step);
  }
  cont::add_angle_sweep_records(res, c, r);
  return res;
}

TextTable critical_table(const cont::AngleSweepResult& r) {
  TextTable t({"variant", "critical_angle_deg", "max_task1_error_mean"});
  for (const auto& s : r.summary)
    t.add_row({cont::variant_name(s.variant), opt_angle(s.critical_angle_deg), fixed(s.max_error_mean, 3)});
  return t;
}

TextTable sweep_table(const cont::AngleSweepResult& r) {
  TextTable t({"variant", "angle_deg", "runs", "task1_error_mean", "task1_error_sd", "task1_error_min",
               "task1_error_max", "forgetting_mean", "task2_error_mean", "diverged_mean"});
  for (const auto& p : r.points)
    t.add_row({cont::variant_name(p.variant), fixed(p.angle_deg, 2), std::to_string(p.runs), fixed(p.error_mean, 3),
               fixed(p.error_std, 3), fixed(p.error_min, 3), fixed(p.error_max, 3), fixed(p.forgetting_mean, 3),
               fixed(p.task2_error_mean, 3),
               fixed(p.runs > 0 ? static_cast<double>(p.diverged_runs) / static_cast<double>(p.runs) : 0, 3)});
  return t;
}

HtmlReport report(const cont::AngleSweepConfig& c, const cont::AngleSweepResult& r) {
  HtmlReport rep("Continual learning: forgetting vs angle between tasks");
  rep.add_paragraph(
      "Two-layer CNN with ReLU^" + std::to_string(c.power_q) + " (" + std::to_string(c.filters_per_class) +
      " filters per class) trained by full-batch gradient descent on signal-noise task 1, then on task 2 whose "
      "signal is rotated by the angle; the curve is task 1's test error after task 2 (Wan et al., ICML 2025, "
      "'Angle Matters'). Mean over seeds; the shaded band is mean +/- one standard deviation (runs).");
  rep.add_facts(
      {{"Runs", std::to_string(c.seeds)},
       {"Training backend", cont::backend_name(c.backend)},
       {"Epochs per task", std::to_string(c.epochs)},
       {"Learning rate", fixed(c.learning_rate, 4)},
       {"Signal norm / noise std", fixed(c.data.signal_norm, 2) + " / " + fixed(c.data.noise_std, 2)},
       {"Samples per task (train / test)",
        std::to_string(c.data.train_per_task) + " / " + std::to_string(c.data.test_per_task)},
       {"Replay fraction", fixed(c.replay_fraction, 3)},
       {"EWC lambda", fixed(c.ewc_lambda, 1)},
       {"EWC Fisher / step", learn::fisher_kind_name(c.fisher) + " / " + learn::penalty_step_name(c.ewc_step)},
       {"Task-1 test error after task 1 (mean)", fixed(r.task1_test_error_mean, 4)}});
  LineChart chart;
  chart.title = "Task-1 test error after task 2 vs angle";
  chart.x_title = "angle between task signals (degrees)";
  chart.y_title = "task-1 test error";
  chart.x_min = 0;
  chart.x_max = 180;
  chart.y_min = 0;
  chart.y_max = 1;
  for (const auto& s : r.summary) {
    ChartSeries series;
    series.label = cont::variant_name(s.variant);
    for (const auto& p : r.points)
      if (p.variant == s.variant) {
        series.x.push_back(p.angle_deg);
        series.y.push_back(p.error_mean);
        series.y_low.push_back(p.error_mean - p.error_std);
        series.y_high.push_back(p.error_mean + p.error_std);
      }
    chart.series.push_back(std::move(series));
  }
  rep.add_chart(std::move(chart));
  rep.add_heading("Critical angle per variant");
  rep.add_paragraph("First angle where the mean task-1 error reaches " + fixed(c.harmful_error, 2) +
                    " (linear interpolation between grid angles); 'none' if it never does on the grid.");
  rep.add_table(critical_table(r));
  rep.add_heading("All points");
  rep.add_table(sweep_table(r));
  return rep;
}

int run(AngleSweepOptions& o, Context& ctx) {
  auto& c = o.config;
  c.angles_deg = cont::parse_angles(o.angles);
  c.variants.clear();
  for (const auto& v : o.variants) c.variants.push_back(cont::parse_variant(v));
  c.backend = cont::parse_backend(o.backend);
  c.fisher = learn::parse_fisher_kind(o.fisher);
  c.ewc_step = learn::parse_penalty_step(o.ewc_step);
  ProgressBar bar("angle-sweep",
                  static_cast<double>(c.seeds) * (1.0 + static_cast<double>(c.angles_deg.size() * c.variants.size())));
  const auto result = cont::run_angle_sweep(c, [&](size_t done, size_t) { bar.update(static_cast<double>(done)); });
  bar.finish();
  OutputDir out(o.out);
  const Results res = sweep_results(c, result);
  res.write(out);
  out.write("critical_angles.csv", critical_table(result).to_csv());
  report(c, result).write(out);
  const std::string path = commit_output(out);
  if (o.format == "json") {
    ctx.out << res.json_text();
  } else if (o.format == "csv") {
    ctx.out << sweep_table(result).to_csv();
  } else {
    ctx.out << "task-1 test error after task 1: " << fixed(result.task1_test_error_mean, 4) << "\n\n"
            << critical_table(result).render();
  }
  print_output_location(ctx, o.format, path);
  return 0;
}

}  // namespace

void add_continual_sweep_command(CLI::App& continual, Context& ctx) {
  auto& o = ctx.make<AngleSweepOptions>();
  auto& c = o.config;
  auto* cmd =
      continual.add_subcommand("angle-sweep", "Forgetting vs angle between two signal-noise tasks (synthetic study)");
  cmd->add_option("--angles", o.angles, "Angles in degrees: start:stop:step (stop included) or a list like 30,160")
      ->capture_default_str();
  cmd->add_option("--variants", o.variants, "Comma-separated variants: cl, replay, ewc, ewc-replay")
      ->delimiter(',')
      ->capture_default_str();
  add_runs_option(*cmd, c.seeds, "Independent runs per (variant, angle): seed indices 0..N-1, each split from --seed");
  cmd->add_option("--seed", c.seed, "Base random seed (results are identical for the same seed)")
      ->capture_default_str();
  cmd->add_option("--epochs", c.epochs, "Full-batch gradient-descent epochs per task")->capture_default_str();
  cmd->add_option("--lr", c.learning_rate, "Learning rate")->capture_default_str();
  cmd->add_option("--patch-len", c.data.patch_len, "Patch length d")->capture_default_str();
  cmd->add_option("--patches", c.data.num_patches, "Patches per sample P (one signal, P-1 noise)")
      ->capture_default_str();
  cmd->add_option("--signal-norm", c.data.signal_norm, "Norm of each task signal")->capture_default_str();
  cmd->add_option("--noise-std", c.data.noise_std, "Standard deviation of each noise coordinate")
      ->capture_default_str();
  cmd->add_flag("--noise-orthogonal", c.data.noise_orthogonal,
                "Project noise off the signal plane (the paper's assumption; the code uses isotropic noise)");
  cmd->add_option("--train-per-task", c.data.train_per_task, "Training samples per task")->capture_default_str();
  cmd->add_option("--test-per-task", c.data.test_per_task, "Test samples per task")->capture_default_str();
  cmd->add_option("--filters", c.filters_per_class, "Filters per class m")->capture_default_str();
  cmd->add_option("--q", c.power_q, "Power q of the polynomial ReLU")->capture_default_str();
  cmd->add_option("--replay-fraction", c.replay_fraction, "Share of the task-2 training set replaced by task-1 samples")
      ->capture_default_str();
  cmd->add_option("--ewc-lambda", c.ewc_lambda, "EWC penalty strength lambda")->capture_default_str();
  cmd->add_option("--fisher", o.fisher,
                  "EWC Fisher diagonal: empirical-sum (the official code's: squared log-likelihood gradients, "
                  "summed over the task-1 samples) or expected-mean (p(1-p)-weighted, averaged)")
      ->capture_default_str();
  cmd->add_option("--ewc-step", o.ewc_step,
                  "How the EWC penalty enters a step: gradient (plain gradient descent on loss + penalty, the "
                  "official code's) or proximal (exact proximal step, stable for any lambda)")
      ->capture_default_str();
  cmd->add_option("--harmful-error", c.harmful_error, "Task-1 error at which forgetting counts as harmful")
      ->capture_default_str();
  cmd->add_option("--threads", c.threads, "Worker threads (results do not depend on it)")->capture_default_str();
  cmd->add_option("--backend", o.backend,
                  "Training backend: torch (libtorch autograd, networks batched) or eigen (hand-written reference)")
      ->capture_default_str();
  cmd->add_option("--chunk-models", c.chunk_models, "torch backend: networks trained together in one batch tensor")
      ->capture_default_str();
  add_output_options(*cmd, o.out, o.format);
  cmd->callback([&] { ctx.run = [&] { return run(o, ctx); }; });
}

}  // namespace dmlkit::app
